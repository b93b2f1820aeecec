// axe-core in the page, on the widget (its shadow root included): the accessibility check the browser tests share.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.x A and AA rules (contrast included) on the widget, its shadow root included. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: Array<{ id: string; nodes: Array<{ target: unknown; failureSummary?: string }> }>;
            passes: Array<{ id: string; nodes: unknown[] }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(
      { include: ['mcp-ondemand-chat'] },
      { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } },
    );
    // Not vacuous: the contrast rule looked at the widget's text.
    const contrast = result.passes.find((p) => p.id === 'color-contrast')?.nodes.length ?? 0;
    return [
      ...(contrast < 5 ? [`color-contrast checked only ${contrast} elements`] : []),
      ...result.violations.flatMap((v) =>
        v.nodes.map((n) => `${v.id}: ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`),
      ),
    ];
  });
}
