// The skills benchmarks' material (MCP Skills extension, SEP-2640): a team
// handbook server's ten skills — each a SKILL.md of 1–4 KB and one or two
// files, holding one distinctive fact a question needs (in the SKILL.md or
// in a file the SKILL.md says to read) — five ordinary documents beside them,
// the questions meant for each, and a generator of N skills for the catalog
// tokens benchmark. Plain data and pure functions: imported both by
// bench/skills.bench.test.ts (inside workerd) and bench/skills-cost.mjs (Node,
// which serves them through the SDK's SkillsExtension).
//
// The questions were written before any run and are not tuned to the
// choosers: some use a skill's own words ("review this PR"), others only the
// task ("someone joins on Monday"), as people ask. A fact's proper noun
// (Kestrel, Nimbus, …) appears nowhere else, so quoting it is checkable.

export const SERVER_ID = 'team';

// Descriptions are quoted: "Review a pull request: what to check" is not a plain YAML scalar.
const frontmatter = (name, description) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n`;
const md = (name, description, body) => `${frontmatter(name, description)}\n${body.trim()}\n`;

/** @type {Array<{ name: string, description: string, files: Record<string, string>, fact: { file: string, text: string } }>} */
export const TEAM_SKILLS = [
  {
    name: 'estimate-a-task',
    description:
      "Estimate a task in hours the way this team does - split it, size each part, and check the result against the team's checklist and guidelines.",
    fact: {
      file: 'checklist.md',
      text: 'Anything that touches the Kestrel ledger gets a fixed 3-hour buffer for the reconciliation run.',
    },
  },
  {
    name: 'write-release-notes',
    description:
      'Write release notes for a version from the test matrix - what is supported, what changed, what is known to fail.',
    fact: {
      file: 'template.md',
      text: 'Release notes for the Osprey mobile app are posted in #osprey-releases before 16:00 UTC on release day.',
    },
  },
  {
    name: 'triage-a-bug',
    description:
      'Triage an incoming bug report - reproduce it, find the owning component, and set a severity from the severity matrix.',
    fact: {
      file: 'severity.md',
      text: 'An S1 bug in the Harbor payments API pages the on-call engineer within 5 minutes.',
    },
  },
  {
    name: 'plan-a-sprint',
    description:
      "Plan a two-week sprint from the backlog and the team's capacity, leaving room for support work and carry-over.",
    fact: { file: 'SKILL.md', text: 'The Falcon team keeps 20 percent of every sprint free for support tickets.' },
  },
  {
    name: 'review-a-pull-request',
    description: 'Review a pull request: what to check, how to comment, and when a change needs a second reviewer.',
    fact: {
      file: 'SKILL.md',
      text: 'Any pull request that changes the Quarry database schema needs a second reviewer from the data team.',
    },
  },
  {
    name: 'rotate-credentials',
    description:
      "Rotate a service's credentials (database passwords, API keys, TLS certificates) without downtime, following the rotation schedule.",
    fact: {
      file: 'rotation-schedule.md',
      text: 'Database passwords for the Nimbus cluster are rotated every 45 days.',
    },
  },
  {
    name: 'onboard-a-new-hire',
    description: 'Onboard a new team member: accounts, hardware, access, and the first-week plan, day by day.',
    fact: { file: 'first-week.md', text: 'On day 2 the IT desk hands out the Meridian VPN token.' },
  },
  {
    name: 'write-a-postmortem',
    description:
      'Write a blameless postmortem after an incident: timeline, impact, root cause, and follow-up actions with owners.',
    fact: {
      file: 'SKILL.md',
      text: 'The postmortem for a Sev1 incident is due within 5 working days and is reviewed at the Thursday ops meeting.',
    },
  },
  {
    name: 'handle-a-refund-request',
    description:
      "Handle a customer's refund request: check eligibility, choose the refund method, and get the approvals the amount needs.",
    fact: { file: 'approval-limits.md', text: 'Refunds above 500 EUR need approval from the Tallinn finance desk.' },
  },
  {
    name: 'deploy-to-production',
    description:
      'Deploy a service to production: pre-flight checks, the canary stage, monitoring, and how to roll back.',
    fact: { file: 'SKILL.md', text: 'Deploys to the Cobalt region are frozen every Friday after 14:00 CET.' },
  },
].map((s) => ({ ...s, files: filesOf(s) }));

/** Each skill's files: SKILL.md first. The fact sits in the file `fact.file` names, once. */
function filesOf({ name, description, fact }) {
  const f = (file) => (fact.file === file ? ` ${fact.text}` : '');
  const bodies = {
    'estimate-a-task': {
      'SKILL.md': `# Estimate a task

Use this when someone asks how long a task will take, asks for an estimate in hours, or asks you to add a task with
an estimate to the tracker.

## Steps

1. Read the team guidelines (\`handbook://guidelines\`): estimates are in hours, and no single task may be estimated
   above the limit they give. A bigger task is split first.
2. Split the work into parts a person can finish in one sitting. Name each part with a verb: "add the export
   button", "write the migration", "update the API docs".
3. Size each part in whole hours. Round up, never down: half an hour is an hour.
4. Go through \`checklist.md\` (this skill's file) item by item and add the time it reveals. It also lists the fixed
   buffers some systems always get.
5. Add up the parts. If the total is above the limit, go back to step 2.
6. Answer with the parts, their hours and the total, in a short table. Say which checklist items added time.

## What not to do

- Do not estimate in days or story points; the tracker only takes hours.
- Do not pad each part "to be safe": the checklist is where risk is counted, once.
- Do not promise a date. An estimate is effort, not a schedule; the sprint plan decides when.
- If you do not know the codebase well enough to split the work, say so and ask who owns the component.`,
      'checklist.md': `# Estimation checklist

- Did you count review time? Add one hour per part that changes shared code.
- Are there tests to write or update? Add them as their own part.
- Does it touch the database schema? Add a part for the migration and its rollback.
- Is anything blocked on another team? Say so; it does not count as hours.
- Would you be surprised if it took twice as long? Then split it again.

## Fixed buffers

Some systems have a slow or manual step that every change pays for, whatever its size.${f('checklist.md')}
Changes to the public API docs get one hour for the docs review.`,
    },
    'write-release-notes': {
      'SKILL.md': `# Write release notes

Use this when someone asks for release notes, a changelog entry, or "what's in this release".

## Steps

1. Find the version. If the user did not give one, ask; never guess a version number.
2. Read the test matrix for that version to the end: it is long and comes in parts. Every product and platform it
   lists is supported unless it says otherwise.
3. Collect the merged changes since the previous release from the release branch's history. Keep those a user would
   notice; leave out refactors and test-only changes.
4. Follow \`template.md\` (this skill's file): the sections, their order, one line per item, and where the notes are
   published.
5. List only what the matrix and the history say. Never invent a version number, a date or a fix.

## Style

- Write for users, not for the team: "Exports no longer time out on large projects", not "fix N+1 in ExportService".
- One line per item, most important first. No more than ten highlights.
- Name the platform when a change or a known issue applies to one platform only.
- Link the ticket of every known issue.`,
      'template.md': `# Release notes template

## Highlights
One line per notable change, most important first.

## Supported
Product - platforms (from the test matrix).

## Known issues
What the matrix marks as failing or untested, with the platform and the ticket.

## Publishing
Web and desktop notes go on the changelog page the day of the release.${f('template.md')}`,
    },
    'triage-a-bug': {
      'SKILL.md': `# Triage a bug

Use this when a new bug report comes in, or someone asks how serious a bug is or who should look at it.

## Steps

1. Reproduce it first, on the version the reporter uses. A bug nobody can reproduce is "needs info": ask the reporter
   for the steps, the version and a screenshot, and stop there.
2. Find the owning component from the stack trace or the URL. The on-call rota (\`handbook://oncall-rota\`) says who
   owns what this week.
3. Set the severity from \`severity.md\` (this skill's file). When two levels seem to fit, take the higher one.
4. Check for duplicates: search open bugs for the same error message. Link duplicates; do not close the older one.
5. Write a one-line summary: what breaks, for whom, since when.
6. Assign it to the owning component's queue with the severity, the summary and the steps to reproduce.

## Notes

- Security reports are never triaged in public channels; move them to the private security queue first.
- A regression (it worked in the previous release) is always at least S2.`,
      'severity.md': `# Severity matrix

- S1: data loss, a security hole, or payments failing - page the on-call engineer.
- S2: a feature is broken for everyone - fix this week.
- S3: a workaround exists - schedule it.
- S4: cosmetic - the backlog.

## Paging

${f('severity.md').trim()} An S2 is posted in the team channel during working hours.`,
    },
    'plan-a-sprint': {
      'SKILL.md': `# Plan a sprint

Use this when someone asks to plan the next sprint, asks what fits in it, or asks how much capacity the team has.

## Steps

1. Work out the capacity in hours: people times working days times six hours, minus holidays (the holiday calendar,
   \`handbook://holidays\`) and planned leave.
2. Take the reserve off the capacity before planning anything.${f('SKILL.md')} Carry-over from the last sprint
   comes next: unfinished items keep their remaining estimate.
3. Take items from the top of the backlog in priority order while their estimates fit what is left. Skip an item
   that does not fit and look further down; do not split items during planning.
4. Check the dependencies: an item waiting on another team goes in only if the other team has planned its part.
5. Write the sprint goal in one sentence, from the items you took.
6. Answer with the goal, the items and their estimates, the capacity used and what is left.

## Rules of thumb

- A sprint planned to more than 90 percent of its capacity will not finish. Leave room.
- New hires count as half capacity in their first two sprints.
- If the backlog's top items are not estimated, estimate them first (the estimate-a-task skill).`,
    },
    'review-a-pull-request': {
      'SKILL.md': `# Review a pull request

Use this when someone asks for a review of a pull request or a diff, or asks whether a change is ready to merge.

## What to check

1. The description says why the change is made and how it was tested. If not, ask for it before reviewing.
2. The change does one thing. Unrelated refactors go in their own pull request.
3. Tests cover the new behaviour and fail without the change.
4. Names say what things are; comments say why, not what.
5. Errors are handled where they happen, or passed on with context. No silent catch-alls.
6. Nothing secret is committed: keys, tokens, customer data in fixtures.

## How to comment

- Mark each comment as "blocking" or "nit". Only blocking comments stop a merge.
- Suggest a fix when you can, as a code suggestion.
- Praise what is done well; reviews are also how the team learns.

## Second reviewers

Most changes need one approval. ${f('SKILL.md').trim()} Changes to the authentication code need a reviewer from the
security group. The author never merges their own change without an approval.`,
    },
    'rotate-credentials': {
      'SKILL.md': `# Rotate credentials

Use this when a secret leaked, when a credential is due for rotation, or when someone asks how to replace a password,
an API key or a certificate.

## Steps

1. Find the credential in the secrets manager and the services that use it. The rotation schedule
   (\`rotation-schedule.md\`, this skill's file) says how often each kind is rotated and who owns it.
2. Create the new credential next to the old one. Both must be valid during the switch: databases get a second user,
   API keys a second key, certificates overlap by at least a week.
3. Roll the new credential out to every service, one at a time, and check each one's health after its restart.
4. Revoke the old credential only when no service has used it for an hour (the access logs show it).
5. Record the rotation in the secrets manager: date, who, why.

## If it leaked

Revoke first, then rotate: a short outage is better than an attacker with access. Tell the security group at once
and open an incident; the write-a-postmortem skill applies afterwards.`,
      'rotation-schedule.md': `# Rotation schedule

| credential | every | owner |
|---|---|---|
| TLS certificates | 60 days (automatic) | platform team |
| API keys for partners | 90 days | integrations team |
| Service account tokens | 30 days | owning team |

${f('rotation-schedule.md').trim()} Other database passwords are rotated every 90 days.`,
    },
    'onboard-a-new-hire': {
      'SKILL.md': `# Onboard a new hire

Use this when someone joins the team, or asks what to prepare for a new colleague or what their first week looks like.

## Before day 1

1. Order the laptop and the second screen two weeks ahead; the IT desk needs the start date and the person's role.
2. Create the accounts: email, chat, the tracker, the code host. Add them to the team's groups, not to single repos.
3. Pick a buddy from the team, not their manager, who answers the small questions during the first month.
4. Put the first-week plan (\`first-week.md\`, this skill's file) in their calendar.

## During the first week

Follow \`first-week.md\` day by day. The buddy checks in every afternoon.

## After the first week

- Their first change should be small and merged in the first two weeks.
- They join the on-call rota after three months, shadowing first.
- Ask them what was confusing and fix this skill.`,
      'first-week.md': `# First week

- Day 1: laptop, accounts, meet the team, read the team guidelines.
- Day 2: development environment set up with the buddy. ${f('first-week.md').trim()}
- Day 3: read the architecture overview; pair on a small bug.
- Day 4: first change opened for review.
- Day 5: retro with the manager and the buddy: what helped, what did not.`,
    },
    'write-a-postmortem': {
      'SKILL.md': `# Write a postmortem

Use this after an incident or an outage, when someone asks to write up what happened, or asks what a postmortem needs.

## Principles

Postmortems are blameless: they describe what the system and the process allowed, not who made a mistake. Write
"the deploy went out without a canary", not "Alex skipped the canary".

## Sections

1. Summary: what happened, in three sentences a customer could read.
2. Impact: who was affected, for how long, and how many requests or customers. Use numbers from the dashboards.
3. Timeline: from the first sign to the all-clear, in UTC, one line per event, with the source of each time.
4. Root cause: ask "why" until you reach something the team can change. There may be more than one.
5. What went well, and what was lucky.
6. Actions: each with one owner and a due date, filed as tickets. No action without an owner.

## Deadlines

${f('SKILL.md').trim()} Sev2 postmortems are due within 10 working days. Drafts are shared with everyone who was
in the incident channel before the review.

## A timeline, for example

    09:12 UTC  error rate on checkout rises to 4 % (dashboard "checkout errors")
    09:15 UTC  the on-call engineer is paged (pager log)
    09:21 UTC  the 09:05 deploy is identified as the likely cause (deploy channel)
    09:24 UTC  rollback started (deploy tool)
    09:31 UTC  error rate back under 0.1 % (dashboard); all-clear posted

Each line is one event with its source. Leave out what people thought at the time; the root cause section is the
place for the why.

## Common mistakes

- Actions like "be more careful" or "improve monitoring": they have no owner and no end. Say which alert, on which
  metric, at which threshold, added by whom.
- A root cause that is a person. Ask what let the mistake reach production.
- Impact without numbers. "Some customers" is not an impact; "1,240 failed checkouts over 19 minutes" is.`,
    },
    'handle-a-refund-request': {
      'SKILL.md': `# Handle a refund request

Use this when a customer asks for their money back, disputes a charge, or cancels a paid plan early.

## Steps

1. Find the payment in the billing system and check what was bought, when, and how it was paid.
2. Check eligibility: monthly plans are refunded within 14 days of the charge, annual plans within 30 days, pro rata
   after that. Usage-based charges are not refunded, but can be credited.
3. Choose the method: back to the original card when possible; bank transfer only when the card is expired.
4. Get the approvals the amount needs (\`approval-limits.md\`, this skill's file) before promising anything.
5. Issue the refund, note the ticket number on the payment, and tell the customer when to expect it (5 to 10 working
   days for cards).

## Tone

Thank the customer, say what will happen and when, and do not argue about the reason. If the request is not
eligible, offer a credit instead and say why the refund is not possible.`,
      'approval-limits.md': `# Approval limits

- Up to 100 EUR: the support agent decides.
- 100 to 500 EUR: a support team lead approves.
- ${f('approval-limits.md').trim()}

Chargebacks and disputes always go to the finance desk, whatever the amount.`,
    },
    'deploy-to-production': {
      'SKILL.md': `# Deploy to production

Use this when someone wants to ship, release or roll out a build to production, or asks how deploys work.

## Pre-flight

1. The build is green on the main branch, and the change has an approved review.
2. Database migrations run before the deploy and are backwards compatible: the old version must still work with the
   new schema.
3. Check the deploy calendar for freezes.${f('SKILL.md')} During a freeze only fixes for S1 bugs go out, with a team lead's approval.

## Canary

Deploy to the canary stage first: five percent of traffic for thirty minutes. Watch the error rate, the latency
p99 and the business dashboards. Any of them worse than before: roll back, do not investigate on production.

## Full rollout

Roll out region by region, the smallest first. Each region waits fifteen minutes before the next.

## Monitoring after the rollout

For the first hour after the last region, the person who deployed stays at their desk and watches:

- the error rate per endpoint, against the same hour of the previous week;
- the latency p50 and p99 of the five busiest endpoints;
- the queue depths of the background workers (a slow consumer shows up there first);
- the business dashboards: sign-ups, checkouts, payments.

Post "deploy done" in the deploy channel with the build number and the change list when the hour is over.

## Feature flags

New behaviour that customers would notice ships behind a flag, off. Turn it on for the team first, then for five
percent of customers, then for everyone, a day apart. A flag that has been fully on for a month is removed in the
next sprint; old flags are how dead code hides.

## Rolling back

Redeploy the previous build from the deploy tool; never revert by hand on a server. Then open an incident if
customers were affected, and write down what the canary missed: a rollback after the canary stage means the canary
needs another check.`,
    },
  };
  const files = bodies[name];
  return Object.fromEntries(
    Object.entries(files).map(([path, text]) => [
      path,
      path === 'SKILL.md' ? md(name, description, text) : `${text.trim()}\n`,
    ]),
  );
}

/** Five ordinary documents of the same server (what a handbook holds besides its skills). */
export const TEAM_DOCS = [
  {
    uri: 'handbook://guidelines',
    name: 'guidelines',
    title: 'Team guidelines',
    description: 'Working hours, meetings, code ownership and how we communicate',
    text: '# Team guidelines\n\nCore working hours are 10:00 to 16:00 in your time zone. Estimates are in hours; no single task is estimated above 16 hours. Decisions are written down in the tracker, not only in chat.\n',
  },
  {
    uri: 'handbook://oncall-rota',
    name: 'oncall-rota',
    title: 'On-call rota',
    description: 'Who is on call each week, per service, and how to swap shifts',
    text: '# On-call rota\n\nWeek 48: Priya (payments), Jonas (search), Mei (platform). Swaps are agreed in the on-call channel and written into this rota.\n',
  },
  {
    uri: 'handbook://architecture',
    name: 'architecture',
    title: 'Architecture overview',
    description: 'The services, their data stores and how requests flow between them',
    text: '# Architecture overview\n\nThe search service keeps its index in OpenSearch and its settings in Postgres. Payments run behind the gateway.\n',
  },
  {
    uri: 'handbook://glossary',
    name: 'glossary',
    title: 'Glossary',
    description: 'Internal names and abbreviations explained',
    text: '# Glossary\n\nSLO: service level objective. RFC: request for comments, our design documents.\n',
  },
  {
    uri: 'handbook://holidays',
    name: 'holidays',
    title: 'Holiday calendar',
    description: 'Public holidays and office closures per country for this year',
    text: '# Holiday calendar\n\nEstonia: the Tallinn office is closed on 24, 25 and 26 December.\n',
  },
].map((d) => ({ ...d, mimeType: 'text/markdown', size: new TextEncoder().encode(d.text).byteLength }));

/**
 * Which catalog entry each question is meant for (`skill` or `doc`). Two per
 * skill — one asking for the task, one for its fact (`expect`: the words a
 * right answer quotes) — and one per document.
 */
export const QUESTIONS = [
  {
    text: 'How long will it take to add CSV export to the admin page? Give me an estimate in hours.',
    skill: 'estimate-a-task',
  },
  {
    text: 'Estimate a change to the Kestrel ledger: how many hours of buffer do we add?',
    skill: 'estimate-a-task',
    expect: '3-hour buffer',
  },
  { text: 'Can you draft the changelog for version 4.2?', skill: 'write-release-notes' },
  {
    text: 'Where and by when do we post the release notes for the Osprey app?',
    skill: 'write-release-notes',
    expect: '#osprey-releases before 16:00 UTC',
  },
  {
    text: 'A customer says checkout fails with a 500 error; what severity should this bug get?',
    skill: 'triage-a-bug',
  },
  {
    text: 'Who gets paged for an S1 bug in the Harbor payments API, and how fast?',
    skill: 'triage-a-bug',
    expect: 'within 5 minutes',
  },
  { text: 'What should go into the next sprint, given our backlog?', skill: 'plan-a-sprint' },
  {
    text: 'How much of a sprint does the Falcon team keep free for support?',
    skill: 'plan-a-sprint',
    expect: '20 percent',
  },
  { text: 'Can you look over this PR before I merge it?', skill: 'review-a-pull-request' },
  {
    text: 'Does a pull request that changes the Quarry schema need a second reviewer?',
    skill: 'review-a-pull-request',
    expect: 'second reviewer from the data team',
  },
  { text: 'Our API key for the billing service leaked; how do we replace it safely?', skill: 'rotate-credentials' },
  {
    text: 'How often are the database passwords of the Nimbus cluster rotated?',
    skill: 'rotate-credentials',
    expect: 'every 45 days',
  },
  { text: 'Someone joins the team on Monday; what do I need to set up for them?', skill: 'onboard-a-new-hire' },
  { text: 'On which day does a new hire get the Meridian VPN token?', skill: 'onboard-a-new-hire', expect: 'On day 2' },
  { text: 'We had an outage last night; help me write up what happened.', skill: 'write-a-postmortem' },
  {
    text: 'When is the postmortem for a Sev1 incident due?',
    skill: 'write-a-postmortem',
    expect: 'within 5 working days',
  },
  { text: 'A customer wants their money back for an annual plan; what do I do?', skill: 'handle-a-refund-request' },
  {
    text: 'Who has to approve a refund above 500 EUR?',
    skill: 'handle-a-refund-request',
    expect: 'Tallinn finance desk',
  },
  { text: "I want to ship the new search build to prod today; what's the procedure?", skill: 'deploy-to-production' },
  {
    text: 'Can we deploy to the Cobalt region on a Friday afternoon?',
    skill: 'deploy-to-production',
    expect: 'after 14:00 CET',
  },
  { text: 'Who is on call for the payments service this week?', doc: 'handbook://oncall-rota' },
  { text: 'What does the abbreviation SLO stand for here?', doc: 'handbook://glossary' },
  { text: 'Is the Tallinn office closed on 26 December?', doc: 'handbook://holidays' },
  { text: 'Which data store does the search service use?', doc: 'handbook://architecture' },
  { text: 'What are our core working hours?', doc: 'handbook://guidelines' },
];

/** The dollars benchmark's six turns: fact questions, three answered by a SKILL.md and three by a file the SKILL.md points to. */
export const COST_TURNS = [
  'triage-a-bug',
  'plan-a-sprint',
  'rotate-credentials',
  'write-a-postmortem',
  'handle-a-refund-request',
  'deploy-to-production',
].map((skill) => QUESTIONS.find((q) => q.skill === skill && q.expect));

/** `skill://<name>/<path>`: where the SDK's skills extension serves a skill's files. */
export const skillUri = (name, path = 'SKILL.md') => `skill://${name}/${path}`;
export const byteLength = (text) => new TextEncoder().encode(text).byteLength;

// ---- N skills, for the catalog tokens benchmark ---------------------------------------------

/** Deterministic PRNG (mulberry32), as bench/lib/corpora.mjs: every run sees the same skills. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS =
  'prepare review update audit migrate document schedule plan publish archive escalate approve monitor debug configure renew reconcile forecast test backfill draft retire benchmark hand-over clean-up'.split(
    ' ',
  );
const OBJECTS =
  'a-vendor-contract the-on-call-handover a-database-migration the-quarterly-goals a-security-review the-incident-channel a-feature-flag the-weekly-report a-customer-escalation the-api-changelog a-data-export the-cloud-cost-report a-load-test the-domain-records a-support-macro the-access-review a-design-doc the-holiday-rota a-partner-integration the-status-page an-sla-breach a-gdpr-request the-build-pipeline a-hotfix the-team-offsite'.split(
    ' ',
  );
const TEAMS = [
  'the platform team',
  'payments',
  'the search squad',
  'identity',
  'the mobile team',
  'support',
  'finance',
  'the data team',
];
const CLAUSES = [
  'with the checks the team agreed on',
  'and record the outcome in the tracker',
  'following the steps in the runbook',
  'including who signs off and when',
  'so that the next person can pick it up',
  'with the templates in this skill',
  'and tell the people it affects',
  'step by step, with the usual pitfalls',
  'and what to do when it goes wrong',
  'using the numbers from the dashboards',
];

/**
 * `n` skills (name, description, files): the ten team skills first, then
 * generated ones — a verb and an object for a name (625 combinations), a
 * description of 60–200 characters, and the files of team skill `i % 10`
 * under a SKILL.md with the new frontmatter (so sizes stay realistic).
 */
export function generateSkills(n) {
  const r = rng(27);
  const combos = VERBS.flatMap((v) => OBJECTS.map((o) => `${v}-${o}`)).sort(() => r() - 0.5);
  const out = TEAM_SKILLS.slice(0, n).map(({ name, description, files }) => ({ name, description, files }));
  for (let i = out.length; i < n; i++) {
    const name = combos[i - TEAM_SKILLS.length];
    if (!name) throw new Error(`generateSkills: at most ${TEAM_SKILLS.length + combos.length} skills`);
    const target = 60 + Math.floor(r() * 141);
    let description = `${name.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase())} for ${TEAMS[Math.floor(r() * TEAMS.length)]}`;
    const clauses = [...CLAUSES].sort(() => r() - 0.5);
    while (description.length < target && clauses.length) {
      const next = `${description}, ${clauses.pop()}`;
      if (next.length > 199) break; // 200 with the full stop
      description = next;
    }
    description = `${description}.`;
    const base = TEAM_SKILLS[i % TEAM_SKILLS.length];
    const body = base.files['SKILL.md'].replace(/^---[\s\S]*?---\n/, '');
    out.push({ name, description, files: { ...base.files, 'SKILL.md': `${frontmatter(name, description)}${body}` } });
  }
  return out;
}
