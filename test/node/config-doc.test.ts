import { expect, it } from 'vitest';
import { checkDoc } from '../../scripts/config-doc.mjs';

it('docs/CONFIGURATION.md lists every setting with its default and description, as the schema says (npm run docs:config)', async () => {
  const { current, expected } = await checkDoc();
  expect(current).toBe(expected);
  expect(current).toContain('| `MAX_STEPS` | `8` |');
});
