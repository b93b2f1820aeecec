/**
 * `docs://test-matrix`: a long markdown document (well over 11,000
 * characters) whose most useful parts — the product list and the required
 * output format — come near the end. Hosts that paste `content[:2000]` into a
 * prompt lose exactly those parts; it is our regression document for that.
 */
const PLATFORMS = [
  'Chrome 142 / Windows 11',
  'Safari 20 / macOS 16',
  'Firefox 145 / Ubuntu 24.04',
  'Edge 142 / Windows 11',
  'Safari / iOS 20',
  'Chrome / Android 16',
];
const AREAS: Array<[string, string[]]> = [
  [
    'Sign-in',
    [
      'password login with valid credentials',
      'login with a wrong password shows an error and no account hint',
      'single sign-on through the company identity provider',
      'session expires after 12 hours of inactivity',
    ],
  ],
  [
    'Task board',
    [
      'create a task with title, owner and estimate',
      'drag a task between columns keeps its order',
      'board filters by owner and by label',
      'bulk-close 50 tasks in one action',
    ],
  ],
  [
    'Notifications',
    [
      'mention in a comment sends an e-mail within one minute',
      'daily digest lists only tasks the user follows',
      'mobile push arrives when the app is in the background',
    ],
  ],
  [
    'Reports',
    [
      'weekly burndown matches the task history',
      'CSV export opens in a spreadsheet with correct encoding',
      'quarterly PDF report renders every chart',
    ],
  ],
  [
    'Integrations',
    [
      'commit message "fixes #123" closes the task',
      'webhook retries three times with backoff',
      'calendar sync shows due dates in the user time zone',
    ],
  ],
];

function cases(): string {
  const rows: string[] = [];
  let n = 1;
  for (const [area, checks] of AREAS) {
    for (const check of checks) {
      const platforms = PLATFORMS.filter((_, i) => (i + n) % 2 === 0 || i === 0).join('; ');
      const priority = n % 5 === 0 ? 'P0' : n % 3 === 0 ? 'P2' : 'P1';
      rows.push(`| TM-${String(n).padStart(3, '0')} | ${area} | ${check} | ${platforms} | ${priority} |`);
      n++;
    }
  }
  return rows.join('\n');
}

function procedures(): string {
  return AREAS.map(
    ([area, checks]) => `### ${area}

${checks
  .map(
    (check, i) =>
      `${i + 1}. **${check[0]!.toUpperCase()}${check.slice(1)}.** Start from a fresh account seeded with the standard fixture set (20 tasks, 3 users, 2 labels). Perform the steps on every listed platform, record the build number, and attach a screenshot of the final state. A check passes only if the observed behaviour matches the expectation on all platforms; a partial pass is recorded as a failure with notes.`,
  )
  .join('\n')}`,
  ).join('\n\n');
}

const PRODUCTS = [
  ['Acme Tasks Web', '4.18.0', 'browser app, all desktop platforms'],
  ['Acme Tasks iOS', '4.18.1', 'iPhone and iPad, iOS 19 and 20'],
  ['Acme Tasks Android', '4.18.0', 'phones and tablets, Android 15 and 16'],
  ['Acme Sync Service', '2.7.3', 'calendar and e-mail connectors'],
  ['Acme Reports', '1.12.0', 'burndown, CSV export, quarterly PDF'],
  ['Acme Hooks', '3.2.0', 'webhooks and commit-message automation'],
];

export const TEST_MATRIX_MARKDOWN = `# Release test matrix — Acme Tasks 4.18

This document is the test matrix for the 4.18 release train. It lists every
manual check the QA rotation runs before a release is promoted from staging to
production, the platforms each check runs on, and how results must be reported.
Automated suites (unit, integration, visual regression) run in CI and are not
repeated here; this matrix covers what still needs a human in front of a device.

## How to use this matrix

- Each row has an id (TM-nnn), the product area, the check, the platforms and a
  priority. P0 checks block the release; P1 checks block it unless the release
  manager signs a waiver; P2 checks are recorded but never block.
- Run the checks in id order inside each area. Areas may be split between
  testers, but one area is never split across two builds.
- Use the staging environment only. Never run destructive checks (bulk-close,
  account deletion) against production data.
- When a check fails, file a bug with the TM id in its title and link it here.

## Checks

| Id | Area | Check | Platforms | Priority |
| --- | --- | --- | --- | --- |
${cases()}

## Procedures

The procedures below expand each check into the steps a tester follows. They
are deliberately repetitive: a tester should be able to pick up any single
check without reading the others.

${procedures()}

## Environments and fixtures

Staging is reset every night at 02:00 UTC from the fixture snapshot. The
fixture set contains three users (owner, member, guest), twenty tasks spread
over four columns, two labels ("bug", "customer") and one webhook pointing at
the request-bin service. If a check needs other data, create it during the
check and delete it afterwards. Test accounts use the domain example.test and
never receive real e-mail; the mail catcher shows every message sent.

Devices: the device lab has two of each listed phone and tablet. Book them in
the lab calendar for at least one hour. Desktop checks run on the shared
virtual machines; never install extensions on them.

## Products under test

The 4.18 release train ships these products together. Every check above runs
against the versions listed here; a different build number invalidates the
result.

${PRODUCTS.map(([name, version, scope]) => `- **${name}** ${version} — ${scope}`).join('\n')}

## Output format

Report results as one markdown table per product, in the order of the product
list above, with exactly these columns:

| Id | Result | Build | Tester | Notes |

- Result is one of PASS, FAIL, BLOCKED or SKIPPED (SKIPPED needs a reason in
  Notes).
- Build is the full build number shown in the product's About screen.
- End the report with a line \`Release recommendation: GO\` or
  \`Release recommendation: NO-GO\`, followed by the ids of every failed P0 or
  P1 check.
`;
