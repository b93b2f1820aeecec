// The documents of the context-bytes benchmark: four corpora of about
// 10 KB, 50 KB, 500 KB and 5 MB, generated from a fixed seed so every run
// (and the pasting baselines computed from them) sees the same bytes. Filler
// is plausible team prose, log lines or HTML; each corpus also carries a few
// distinctive facts at chosen places (start, middle, deep inside a long doc)
// and six questions whose right answer is one of those facts (six follow-ups
// more for the cost benchmark's twelve-turn conversations). Filler never
// uses the facts' proper nouns, so "the sentence naming Lisbon's door code"
// exists exactly once.

/** Deterministic PRNG (mulberry32): the same seed gives the same corpus on every machine. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export const pick = (r, xs) => xs[Math.floor(r() * xs.length)];

const SUBJECTS = [
  'The platform team',
  'Each reviewer',
  'The release manager',
  'Every new hire',
  'The on-call engineer',
  'A team lead',
  'The finance desk',
  'The security group',
  'The support desk',
  'The facilities team',
  'The owning squad',
  'Whoever opens a ticket',
];
const VERBS = [
  'reviews',
  'updates',
  'documents',
  'checks',
  'approves',
  'archives',
  'summarises',
  'tracks',
  'schedules',
  'audits',
  'double-checks',
  'hands over',
];
const OBJECTS = [
  'the weekly status report',
  'open change requests',
  'the shared calendar',
  'pending purchase orders',
  'the incident backlog',
  'access requests',
  'the onboarding tracker',
  'results from the nightly build',
  'vendor contracts',
  'the team wiki',
  'the capacity forecast',
  'flaky test reports',
];
const TAILS = [
  'before the planning meeting.',
  'at the end of each sprint.',
  'within two working days.',
  'and notes any exceptions in the tracker.',
  'so that nothing is lost between shifts.',
  'using the standard template.',
  'together with the owning team.',
  'unless the change is trivial.',
  'and links the outcome in the ticket.',
  'as described in the previous section.',
  'after checking with a second person.',
  'and posts a short summary in the channel.',
];
const HEADINGS = [
  'Scope',
  'Background',
  'Responsibilities',
  'How it works',
  'Exceptions',
  'Checklist',
  'Escalation',
  'Records',
  'Reviews',
  'Tools',
  'Frequently asked questions',
  'History',
];

const sentence = (r) => `${pick(r, SUBJECTS)} ${pick(r, VERBS)} ${pick(r, OBJECTS)} ${pick(r, TAILS)}`;

/**
 * A markdown document of about `chars` characters: a title, sections of
 * filler paragraphs, and each fact as its own sentence at its relative
 * position `at` (0 = first paragraph, 1 = last).
 */
function markdown(r, title, chars, facts) {
  const paragraphs = [];
  let length = 0;
  while (length < chars) {
    const p = Array.from({ length: 3 + Math.floor(r() * 4) }, () => sentence(r)).join(' ');
    const heading = paragraphs.length % 4 === 0 ? `## ${pick(r, HEADINGS)}\n\n` : '';
    paragraphs.push(heading + p);
    length += heading.length + p.length + 2;
  }
  for (const fact of facts) {
    const i = Math.min(paragraphs.length - 1, Math.floor(fact.at * paragraphs.length));
    paragraphs[i] = `${paragraphs[i]} ${fact.text}`;
  }
  return `# ${title}\n\n${paragraphs.join('\n\n')}\n`;
}

const SERVICES = ['orders', 'catalog', 'checkout', 'search', 'accounts', 'inventory', 'shipping', 'reviews'];
const hex8 = (r) =>
  Math.floor(r() * 2 ** 32)
    .toString(16)
    .padStart(8, '0');

/**
 * A gateway access log of about `chars` characters, one request per line;
 * `facts` are whole lines placed at relative positions. The last line
 * carries a checksum (what the full-read question asks for).
 */
function accessLog(r, chars, facts, lastLine) {
  const lines = [];
  let length = 0;
  let ms = Date.UTC(2025, 2, 14);
  while (length < chars - lastLine.length) {
    ms += Math.floor(r() * 4200); // about one day of traffic in 5 MB
    const status = r() < 0.97 ? 200 : pick(r, [404, 429, 500, 503]);
    let id = hex8(r);
    if (facts.some((f) => f.text.includes(id))) id = hex8(r);
    const service = pick(r, SERVICES);
    const line = `${new Date(ms).toISOString()} ${status >= 500 ? 'ERROR' : 'INFO '} gateway req=${id} route=/v1/${service}/${Math.floor(r() * 9000) + 1000} status=${status} dur_ms=${Math.floor(r() * 400) + 3} upstream=${service}-svc node=edge-eu-${1 + Math.floor(r() * 4)}`;
    lines.push(line);
    length += line.length + 1;
  }
  for (const fact of facts) lines.splice(Math.floor(fact.at * lines.length), 0, fact.text);
  lines.push(lastLine);
  return `${lines.join('\n')}\n`;
}

const PARAMS = ['id', 'cursor', 'limit', 'since', 'status', 'region', 'expand', 'currency'];
/** An HTML API reference of about `chars` characters, one element per line; facts are <p> lines at relative positions. */
function apiReference(r, chars, facts) {
  const lines = [
    '<!doctype html>',
    '<html><head><title>Public API reference</title></head><body>',
    '<h1>Public API reference</h1>',
  ];
  let length = 0;
  let n = 0;
  while (length < chars) {
    const service = pick(r, SERVICES);
    const method = pick(r, ['GET', 'POST', 'PATCH', 'DELETE']);
    const block = [
      `<section id="ep-${++n}">`,
      `<h2>${method} /v1/${service}/{id}/${pick(r, ['items', 'history', 'notes', 'exports', 'events'])}</h2>`,
      `<p>${sentence(r)} ${sentence(r)}</p>`,
      '<table><tr><th>Parameter</th><th>Type</th><th>Description</th></tr>',
      ...Array.from(
        { length: 2 + Math.floor(r() * 3) },
        () =>
          `<tr><td>${pick(r, PARAMS)}</td><td>${pick(r, ['string', 'integer', 'boolean'])}</td><td>${sentence(r)}</td></tr>`,
      ),
      '</table>',
      `<pre><code>curl -X ${method} https://api.example.com/v1/${service}/${hex8(r)}</code></pre>`,
      '</section>',
    ];
    lines.push(...block);
    length += block.reduce((sum, l) => sum + l.length + 1, 0);
  }
  for (const fact of facts) lines.splice(Math.floor(fact.at * lines.length), 0, `<p>${fact.text}</p>`);
  lines.push('</body></html>');
  return `${lines.join('\n')}\n`;
}

/**
 * A doc spec: slug, title, description, mime, size and facts; `gen` says how
 * to write it. Each question names its doc (by slug) and the text that a
 * right answer contains (`expect`).
 */
const SPECS = {
  '10k': {
    title: '10 KB: four short markdown docs',
    docs: [
      {
        slug: 'office-guide',
        title: 'Office guide',
        description: 'Addresses, opening hours and access for our offices',
        chars: 2500,
        facts: [
          { at: 0.5, text: 'The door code for the Lisbon office is 4471-K.' },
          { at: 0.85, text: 'Visitors to the Lisbon office sign in at the Tejo reception desk on floor 3.' },
          { at: 0.2, text: 'The Lisbon office closes at 19:00 on Fridays.' },
        ],
      },
      {
        slug: 'expense-policy',
        title: 'Expense policy',
        description: 'What can be claimed, the limits, and how to file a claim',
        chars: 2500,
        facts: [
          { at: 0.4, text: 'Meals on a Berlin client visit are reimbursed up to 38 EUR per person.' },
          { at: 0.9, text: 'Expense claims for the Berlin entity are filed in Ledgerly within 30 days.' },
          { at: 0.65, text: 'Taxi rides on a Berlin client visit are reimbursed up to 60 EUR per day.' },
        ],
      },
      {
        slug: 'onboarding',
        title: 'Onboarding checklist',
        description: 'The first two weeks of a new engineer',
        chars: 2500,
        facts: [
          {
            at: 0.3,
            text: 'New engineers in the Atlas team receive a laptop from the vendor Northwind in their first week.',
          },
          { at: 0.7, text: 'Newcomers to the Atlas team pair with a buddy named Marta for their first sprint.' },
        ],
      },
      {
        slug: 'security-basics',
        title: 'Security basics',
        description: 'Passwords, devices and reporting incidents',
        chars: 2500,
        facts: [
          { at: 0.6, text: 'Passwords for the Vault admin console must be rotated every 45 days.' },
          { at: 0.25, text: 'Lost Vault hardware tokens are reported to the Sentinel desk within 4 hours.' },
        ],
      },
    ],
    questions: [
      { text: 'What is the door code for the Lisbon office?', doc: 'office-guide', expect: '4471-K' },
      {
        text: 'How much does the expense policy reimburse for meals on a Berlin client visit?',
        doc: 'expense-policy',
        expect: '38 EUR',
      },
      {
        text: 'Which vendor supplies the laptop of new engineers in the Atlas team?',
        doc: 'onboarding',
        expect: 'Northwind',
      },
      { text: 'Where do visitors to the Lisbon office sign in?', doc: 'office-guide', expect: 'Tejo reception' },
      {
        text: 'How often must passwords for the Vault admin console be rotated?',
        doc: 'security-basics',
        expect: '45 days',
      },
      { text: 'Where are expense claims for the Berlin entity filed?', doc: 'expense-policy', expect: 'Ledgerly' },
    ],
    followUps: [
      { text: 'When does the Lisbon office close on Fridays?', doc: 'office-guide', expect: '19:00' },
      {
        text: 'Who is the buddy of newcomers to the Atlas team in their first sprint?',
        doc: 'onboarding',
        expect: 'Marta',
      },
      { text: 'Remind me, what is the door code for the Lisbon office?', doc: 'office-guide', expect: '4471-K' },
      { text: 'Where are lost Vault hardware tokens reported?', doc: 'security-basics', expect: 'Sentinel desk' },
      {
        text: 'How much are taxi rides on a Berlin client visit reimbursed per day?',
        doc: 'expense-policy',
        expect: '60 EUR',
      },
      {
        text: 'Which vendor was it again that supplies laptops to new engineers in the Atlas team?',
        doc: 'onboarding',
        expect: 'Northwind',
      },
    ],
  },
  '50k': {
    title: '50 KB: a team handbook in eight docs',
    docs: [
      {
        slug: 'working-hours',
        title: 'Team handbook: working hours and leave',
        description: 'Core hours, remote days, holidays and carrying over leave',
        chars: 6200,
        facts: [
          { at: 0.3, text: 'Core hours for the Dublin team are 10:00 to 15:00 local time.' },
          { at: 0.85, text: 'The Dublin team may carry over up to 5 days of leave into the next year.' },
        ],
      },
      {
        slug: 'on-call',
        title: 'Team handbook: on-call rotation',
        description: 'Who is paged, when pages escalate, and on-call pay',
        chars: 6200,
        facts: [
          { at: 0.6, text: 'Pages for the Falcon service escalate to the secondary engineer after 12 minutes.' },
          { at: 0.15, text: 'Engineers on the Falcon rotation receive an on-call allowance of 310 EUR per week.' },
        ],
      },
      {
        slug: 'release-process',
        title: 'Team handbook: release process',
        description: 'Release trains, freezes and rollbacks',
        chars: 6200,
        facts: [{ at: 0.5, text: 'Releases of the Mercury app are frozen from 18 December to 3 January.' }],
      },
      {
        slug: 'expenses',
        title: 'Team handbook: expenses',
        description: 'Claims, receipts and approval limits',
        chars: 6200,
        facts: [{ at: 0.5, text: 'Claims above 500 EUR for the Orion project need a director to approve them.' }],
      },
      {
        slug: 'travel',
        title: 'Team handbook: travel',
        description: 'Booking trips, hotels and per-diem limits by city',
        chars: 6200,
        facts: [{ at: 0.7, text: 'The daily hotel limit in London is 240 GBP per night.' }],
      },
      {
        slug: 'security',
        title: 'Team handbook: security',
        description: 'Devices, secrets and access reviews',
        chars: 6200,
        facts: [{ at: 0.4, text: 'Hardware keys for the Nimbus console are issued by the IT desk on request.' }],
      },
      {
        slug: 'offices',
        title: 'Team handbook: offices',
        description: 'Where our offices are and how to get in',
        chars: 6200,
        facts: [{ at: 0.4, text: 'The Porto office opens at 07:30 on weekdays.' }],
      },
      {
        slug: 'code-review',
        title: 'Team handbook: code review',
        description: 'What reviewers look for and how fast they answer',
        chars: 6200,
        facts: [{ at: 0.4, text: 'Changes to the Zephyr billing module need two approving reviews.' }],
      },
    ],
    questions: [
      { text: 'What are the core hours for the Dublin team?', doc: 'working-hours', expect: '10:00 to 15:00' },
      {
        text: 'After how many minutes do pages for the Falcon service escalate?',
        doc: 'on-call',
        expect: '12 minutes',
      },
      { text: 'When are releases of the Mercury app frozen?', doc: 'release-process', expect: '18 December' },
      {
        text: 'How many days of leave may the Dublin team carry over into the next year?',
        doc: 'working-hours',
        expect: '5 days',
      },
      { text: 'What is the daily hotel limit in London?', doc: 'travel', expect: '240 GBP' },
      {
        text: 'What on-call allowance do engineers on the Falcon rotation receive?',
        doc: 'on-call',
        expect: '310 EUR',
      },
    ],
    followUps: [
      { text: 'Who must approve claims above 500 EUR for the Orion project?', doc: 'expenses', expect: 'director' },
      // Worded with the document's subject, as a person who knows the handbook would: the reader policy matches words.
      {
        text: 'Under our security rules, who issues hardware keys for the Nimbus console?',
        doc: 'security',
        expect: 'IT desk',
      },
      {
        text: 'Remind me: after how many minutes do pages for the Falcon service escalate?',
        doc: 'on-call',
        expect: '12 minutes',
      },
      { text: 'At what time does the Porto office open on weekdays?', doc: 'offices', expect: '07:30' },
      {
        text: 'How many approving reviews do changes to the Zephyr billing module need?',
        doc: 'code-review',
        expect: 'two approving reviews',
      },
      { text: 'Until when are releases of the Mercury app frozen?', doc: 'release-process', expect: '3 January' },
    ],
  },
  '500k': {
    title: '500 KB: forty runbooks, design notes and policies',
    docs: [
      // The payments runbook is long (~48 KB): its first fact sits in the second read window.
      {
        slug: 'runbooks/payments',
        title: 'Runbook: payments service',
        description: 'Alerts, dashboards, failover and owners of the payments service',
        chars: 48_000,
        facts: [
          { at: 0.7, text: 'The Kestrel cluster fails over to the region eu-north-2 when its primary is lost.' },
          { at: 0.08, text: 'The Kestrel cluster is owned by the ledger platform group.' },
          { at: 0.35, text: 'The Kestrel cluster health is shown on the dashboard named pay-kestrel-main.' },
        ],
      },
      {
        slug: 'runbooks/notifications',
        title: 'Runbook: notifications service',
        description: 'Queues, workers and paging rules of the notifications service',
        chars: 12_000,
        facts: [
          { at: 0.45, text: 'The Sparrow workers report their queue depth on the dashboard named notif-queues-7.' },
          { at: 0.8, text: 'Sparrow worker errors page the on-call engineer above 2 percent of jobs.' },
        ],
      },
      {
        slug: 'design/search-ranking',
        title: 'Design note: search ranking',
        description: 'How results are ranked and how the model is trained',
        chars: 12_000,
        facts: [
          { at: 0.55, text: 'The Lark ranking model is retrained every 14 days on click logs.' },
          { at: 0.2, text: 'The Lark ranking model is evaluated on a held-out set of 50000 search queries.' },
        ],
      },
      {
        slug: 'policies/data-retention',
        title: 'Policy: data retention',
        description: 'How long each kind of data is kept, and who may delete it',
        chars: 12_000,
        facts: [
          { at: 0.65, text: 'Raw audit logs from the Quokka warehouse are kept for 400 days.' },
          { at: 0.3, text: 'Only the Quokka data stewards may delete audit logs before their retention ends.' },
        ],
      },
      ...[
        'identity',
        'inventory',
        'shipping',
        'billing',
        'catalog',
        'checkout',
        'accounts',
        'reviews',
        'pricing',
        'media',
        'gateway',
        'scheduler',
        'exports',
        'webhooks',
        'analytics',
        'recommendations',
      ].map((s) => ({
        slug: `runbooks/${s}`,
        title: `Runbook: ${s} service`,
        description: `Alerts, dashboards and owners of the ${s} service`,
        chars: 12_000,
        facts: [],
      })),
      ...[
        'caching',
        'rate limits',
        'tenancy',
        'audit trail',
        'feature flags',
        'schema changes',
        'backups',
        'job queue',
        'search index',
      ].map((s) => ({
        slug: `design/${s.replace(/ /g, '-')}`,
        title: `Design note: ${s}`,
        description: `Why and how we built ${s}`,
        chars: 10_500,
        facts: [],
      })),
      ...[
        'access reviews',
        'incident response',
        'vendor risk',
        'encryption',
        'acceptable use',
        'change management',
        'business continuity',
        'logging',
        'open source',
        'hiring',
      ].map((s) => ({
        slug: `policies/${s.replace(/ /g, '-')}`,
        title: `Policy: ${s}`,
        description: `The ${s} policy and who it applies to`,
        chars: 9_000,
        facts: [],
      })),
    ],
    questions: [
      {
        text: 'What region does the Kestrel cluster fail over to, according to the payments runbook?',
        doc: 'runbooks/payments',
        expect: 'eu-north-2',
      },
      {
        text: 'On which dashboard do the Sparrow workers report their queue depth?',
        doc: 'runbooks/notifications',
        expect: 'notif-queues-7',
      },
      { text: 'How often is the Lark ranking model retrained?', doc: 'design/search-ranking', expect: '14 days' },
      {
        text: 'Who owns the Kestrel cluster in the payments service?',
        doc: 'runbooks/payments',
        expect: 'ledger platform group',
      },
      {
        text: 'Under the data retention policy, how long are raw audit logs from the Quokka warehouse kept?',
        doc: 'policies/data-retention',
        expect: '400 days',
      },
      {
        text: 'Above what share of jobs do Sparrow worker errors page the on-call engineer?',
        doc: 'runbooks/notifications',
        expect: '2 percent',
      },
    ],
    followUps: [
      {
        text: 'On which dashboard is the Kestrel cluster health shown in the payments runbook?',
        doc: 'runbooks/payments',
        expect: 'pay-kestrel-main',
      },
      {
        text: 'On how many held-out search queries is the Lark ranking model evaluated?',
        doc: 'design/search-ranking',
        expect: '50000',
      },
      {
        text: 'Remind me, what region does the Kestrel cluster fail over to?',
        doc: 'runbooks/payments',
        expect: 'eu-north-2',
      },
      {
        text: 'Who may delete Quokka audit logs before their retention ends?',
        doc: 'policies/data-retention',
        expect: 'data stewards',
      },
      {
        text: 'Which dashboard shows the queue depth of the Sparrow workers again?',
        doc: 'runbooks/notifications',
        expect: 'notif-queues-7',
      },
      {
        text: 'How often is the Lark ranking model retrained, and on what?',
        doc: 'design/search-ranking',
        expect: 'click logs',
      },
    ],
  },
  '5m': {
    title: '5 MB: a 4.8 MB gateway log, a 400 KB HTML API reference and three short docs',
    docs: [
      {
        slug: 'logs/gateway.log',
        title: 'Gateway access log',
        description: 'Every request the edge gateway served on 14 March',
        mime: 'text/plain',
        gen: 'log',
        chars: 5_000_000,
        facts: [
          {
            at: 0.0005,
            text: '2025-03-14T00:00:00.412Z INFO  gateway started build=2025.03.2-rc7 node=Osprey-eu-3 config=prod',
          },
          {
            at: 0.62,
            text: '2025-03-14T13:31:54.881Z ERROR gateway req=c0ffee42 route=/v1/payments/7731 status=502 upstream=ledger-svc error="upstream reset" incident=INC-20417',
          },
        ],
        lastLine: '2025-03-14T23:59:59.998Z INFO  gateway log closed lines=all checksum=5be1d0c7a9',
      },
      {
        slug: 'api/reference.html',
        title: 'Public API reference',
        description: 'Endpoints, parameters and limits of the public HTTP API',
        mime: 'text/html',
        gen: 'html',
        chars: 400_000,
        facts: [
          { at: 0.3, text: 'The rate limit for the Heron export endpoint is 75 requests per minute per tenant.' },
          { at: 0.04, text: 'Every Heron API request names its tenant in the header X-Tenant-Ref.' },
        ],
      },
      {
        slug: 'docs/gateway-runbook',
        title: 'Gateway operations runbook',
        description: 'Restarting, draining and scaling the edge gateway',
        chars: 8_000,
        facts: [
          { at: 0.5, text: 'To drain a Pelican edge node, run gatewayctl drain --grace 90s before the restart.' },
          {
            at: 0.8,
            text: 'Pelican edge nodes are scaled out when their CPU stays above 70 percent for 10 minutes.',
          },
        ],
      },
      {
        slug: 'docs/deploy-checklist',
        title: 'Deployment checklist',
        description: 'Steps before, during and after a production deploy',
        chars: 8_000,
        facts: [
          { at: 0.4, text: 'Deploys to the Cormorant region need a green canary for 20 minutes first.' },
          { at: 0.75, text: 'Rollbacks in the Cormorant region are approved by the duty manager.' },
        ],
      },
      {
        slug: 'docs/contacts',
        title: 'Team contacts',
        description: 'Who to call for what, by team',
        chars: 6_000,
        facts: [{ at: 0.5, text: 'The Albatross on-call phone number is +44 20 7946 0321.' }],
      },
    ],
    questions: [
      {
        text: 'Which build did the gateway start with on node Osprey, according to the gateway log?',
        doc: 'logs/gateway.log',
        expect: '2025.03.2-rc7',
      },
      {
        text: 'What is the rate limit for the Heron export endpoint, according to the reference?',
        doc: 'api/reference.html',
        expect: '75 requests per minute',
      },
      {
        text: 'How do I drain a Pelican edge node before a restart?',
        doc: 'docs/gateway-runbook',
        expect: 'gatewayctl drain',
      },
      {
        text: 'Which incident was request c0ffee42 linked to in the gateway log?',
        doc: 'logs/gateway.log',
        expect: 'INC-20417',
      },
      {
        text: 'How long must the canary be green before deploys to the Cormorant region?',
        doc: 'docs/deploy-checklist',
        expect: '20 minutes',
      },
      {
        text: 'Which header names the tenant of a Heron API request?',
        doc: 'api/reference.html',
        expect: 'X-Tenant-Ref',
      },
    ],
    followUps: [
      { text: 'What is the Albatross on-call phone number?', doc: 'docs/contacts', expect: '+44 20 7946 0321' },
      { text: 'When are Pelican edge nodes scaled out?', doc: 'docs/gateway-runbook', expect: '70 percent' },
      {
        text: 'Who approves rollbacks in the Cormorant region?',
        doc: 'docs/deploy-checklist',
        expect: 'duty manager',
      },
      {
        text: 'Remind me, what is the rate limit for the Heron export endpoint?',
        doc: 'api/reference.html',
        expect: '75 requests per minute',
      },
      {
        text: 'Which upstream did request c0ffee42 fail on, according to the gateway log?',
        doc: 'logs/gateway.log',
        expect: 'ledger-svc',
      },
      {
        text: 'How long is the grace period when draining a Pelican edge node?',
        doc: 'docs/gateway-runbook',
        expect: '90s',
      },
    ],
    fullRead: {
      text: 'Read the whole gateway log from start to end and tell me the checksum on its last line.',
      doc: 'logs/gateway.log',
      expect: '5be1d0c7a9',
    },
  },
};

export const CORPUS_NAMES = Object.keys(SPECS);

const built = new Map();

/**
 * One corpus: `{ name, title, docs: [{ uri, slug, title, description, mimeType, text, size }], questions, fullRead? }`
 * with each question's `uri` resolved. Built once per process (the 5 MB one takes a moment).
 */
export function corpus(name) {
  if (built.has(name)) return built.get(name);
  const spec = SPECS[name];
  if (!spec) throw new Error(`unknown corpus "${name}" (${CORPUS_NAMES.join(', ')})`);
  const docs = spec.docs.map((d, i) => {
    const r = rng(0xc0ffee + i * 7919 + name.length * 104729);
    const text =
      d.gen === 'log'
        ? accessLog(r, d.chars, d.facts, d.lastLine)
        : d.gen === 'html'
          ? apiReference(r, d.chars, d.facts)
          : markdown(r, d.title, d.chars, d.facts);
    const uri = `corpus://c${name}/${d.slug}${d.mime ? '' : '.md'}`;
    return {
      uri,
      slug: d.slug,
      title: d.title,
      description: d.description,
      mimeType: d.mime ?? 'text/markdown',
      text,
      size: Buffer.byteLength(text),
    };
  });
  const resolve = (q) => ({ ...q, uri: docs.find((d) => d.slug === q.doc).uri });
  const result = {
    name,
    title: spec.title,
    docs,
    questions: spec.questions.map(resolve),
    /** Turns 7 to 12 of the cost benchmark's longer conversations: new facts, and questions asked again. */
    followUps: (spec.followUps ?? []).map(resolve),
    ...(spec.fullRead ? { fullRead: resolve(spec.fullRead) } : {}),
  };
  built.set(name, result);
  return result;
}
