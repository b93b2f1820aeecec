// A many-tool catalog for the tool-choice benchmark (bench/tool-choice.mjs): six servers as teams connect them
// (code host, chat, tickets, calendar, files, CRM), 48 tools named and described the way such servers describe
// them, and four conversations that drift between servers, each turn with the tool it needs and the few words a
// model would search for it with.

/** @type {Array<[server: string, name: string, description: string, properties: string[]]>} */
const TOOLS = [
  ['code', 'search_code', 'Search code across repositories by text or symbol', ['query', 'repo']],
  ['code', 'get_file', 'Get the contents of a file in a repository at a ref', ['repo', 'path', 'ref']],
  ['code', 'list_pull_requests', 'List pull requests of a repository, open or closed', ['repo', 'state']],
  ['code', 'get_pull_request', 'Get a pull request with its description, status and reviewers', ['repo', 'number']],
  ['code', 'create_pull_request', 'Open a pull request from a branch', ['repo', 'head', 'base', 'title', 'body']],
  ['code', 'merge_pull_request', 'Merge a pull request', ['repo', 'number', 'method']],
  ['code', 'list_commits', 'List the commits of a branch', ['repo', 'branch', 'since']],
  ['code', 'create_branch', 'Create a branch from a ref', ['repo', 'name', 'from']],
  ['chat', 'post_message', 'Post a message to a channel', ['channel', 'text', 'thread']],
  ['chat', 'list_channels', 'List the channels of the workspace', ['cursor']],
  ['chat', 'channel_history', 'Read the recent messages of a channel', ['channel', 'limit']],
  ['chat', 'search_messages', 'Search messages across channels', ['query', 'from', 'in']],
  ['chat', 'add_reaction', 'Add an emoji reaction to a message', ['channel', 'timestamp', 'emoji']],
  ['chat', 'user_profile', 'Get a user profile: name, title, time zone', ['user']],
  ['chat', 'set_status', 'Set your status text and emoji', ['text', 'emoji', 'expires']],
  ['chat', 'schedule_message', 'Schedule a message to be posted later', ['channel', 'text', 'at']],
  [
    'tickets',
    'create_issue',
    'Create an issue in a project with a summary and description',
    ['project', 'summary', 'description', 'type'],
  ],
  ['tickets', 'get_issue', 'Get an issue by key with its status, assignee and comments', ['key']],
  ['tickets', 'search_issues', 'Search issues with a query: status, assignee, labels, sprint', ['jql', 'limit']],
  ['tickets', 'transition_issue', 'Move an issue to another status (start, resolve, close)', ['key', 'transition']],
  ['tickets', 'assign_issue', 'Assign an issue to a person', ['key', 'assignee']],
  ['tickets', 'comment_issue', 'Add a comment to an issue', ['key', 'body']],
  ['tickets', 'list_sprints', 'List the sprints of a board, active and future', ['board']],
  ['tickets', 'log_work', 'Log time spent on an issue', ['key', 'time', 'comment']],
  ['calendar', 'list_events', 'List calendar events between two dates', ['calendar', 'from', 'to']],
  ['calendar', 'create_event', 'Create a calendar event with attendees', ['title', 'start', 'end', 'attendees']],
  ['calendar', 'update_event', 'Change the time, title or attendees of an event', ['id', 'start', 'end', 'title']],
  ['calendar', 'delete_event', 'Cancel and delete a calendar event', ['id']],
  ['calendar', 'find_free_time', 'Find free time slots shared by several people', ['attendees', 'duration', 'within']],
  ['calendar', 'respond_to_invite', 'Accept, decline or tentatively accept an invitation', ['id', 'response']],
  ['calendar', 'list_calendars', 'List the calendars you can see', []],
  ['calendar', 'out_of_office', 'Set an out of office period with a reply', ['from', 'to', 'message']],
  ['files', 'search_files', 'Search documents and spreadsheets by name or content', ['query', 'type']],
  ['files', 'read_document', 'Read the text of a document', ['id']],
  ['files', 'create_document', 'Create a document with a title and content', ['title', 'content', 'folder']],
  ['files', 'share_file', 'Share a file with people, as viewer or editor', ['id', 'emails', 'role']],
  ['files', 'list_folder', 'List the files in a folder', ['folder']],
  ['files', 'move_file', 'Move a file to another folder', ['id', 'folder']],
  ['files', 'read_spreadsheet', 'Read a range of cells from a spreadsheet', ['id', 'range']],
  ['files', 'append_rows', 'Append rows to a spreadsheet', ['id', 'sheet', 'rows']],
  ['crm', 'find_contact', 'Find a contact by name, email or company', ['query']],
  ['crm', 'create_contact', 'Create a contact with name, email and company', ['name', 'email', 'company']],
  ['crm', 'get_deal', 'Get a deal with its stage, amount and owner', ['id']],
  ['crm', 'update_deal_stage', 'Move a deal to another pipeline stage', ['id', 'stage']],
  ['crm', 'list_deals', 'List the deals of a pipeline, filtered by owner or stage', ['pipeline', 'owner', 'stage']],
  ['crm', 'log_call', 'Log a call with a contact and its notes', ['contact', 'notes', 'duration']],
  ['crm', 'create_task', 'Create a follow-up task for a contact or deal', ['subject', 'due', 'contact']],
  ['crm', 'company_summary', 'Summarise a company: contacts, deals, recent activity', ['company']],
];

/** The catalog as MCP servers list it: `{ server, tool: { name, description, inputSchema } }`. */
export const TOOL_CATALOG = TOOLS.map(([server, name, description, properties]) => ({
  server,
  tool: {
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(properties.map((p) => [p, { type: 'string', description: `The ${p}` }])),
      required: properties.slice(0, 1),
    },
  },
}));

/** Conversations: each turn, the user's message, the tool it needs (`<server>__<tool>`), and what a model would search for. */
export const TOOL_CONVERSATIONS = [
  [
    [
      'Can you find the pull request that changed the login page and tell me if it is merged?',
      'code__list_pull_requests',
      'list pull requests',
    ],
    ['Who reviewed it?', 'code__get_pull_request', 'pull request reviewers'],
    ['Open an issue to add a test for the login redirect.', 'tickets__create_issue', 'create issue'],
    ['Assign it to Priya.', 'tickets__assign_issue', 'assign issue'],
    ['Post a note in #frontend that the issue exists.', 'chat__post_message', 'post message channel'],
    ['Create a branch for the fix from main.', 'code__create_branch', 'create branch'],
    ['Put a 30 minute review with Priya in the calendar tomorrow.', 'calendar__create_event', 'create calendar event'],
    ['Move the issue to In Progress.', 'tickets__transition_issue', 'move issue status'],
  ],
  [
    ['What is on my calendar next week?', 'calendar__list_events', 'list calendar events'],
    ['Find a free hour with Sam and Lee on Thursday.', 'calendar__find_free_time', 'find free time'],
    ['Book it as "Q3 planning" with both of them.', 'calendar__create_event', 'create event attendees'],
    ['Write a planning document for it with an agenda.', 'files__create_document', 'create document'],
    ['Share the document with Sam and Lee as editors.', 'files__share_file', 'share file'],
    ['Tell #planning that the doc is ready.', 'chat__post_message', 'post message'],
    ['Decline the vendor sync on Friday.', 'calendar__respond_to_invite', 'decline invitation'],
    ['Set my status to "planning" until noon.', 'chat__set_status', 'set status'],
  ],
  [
    ['How is the Northwind deal going?', 'crm__get_deal', 'get deal stage'],
    ['Give me a summary of Northwind as a company.', 'crm__company_summary', 'company summary'],
    ['Log a call with their CTO: they want a pilot in May.', 'crm__log_call', 'log call notes'],
    ['Move the deal to the pilot stage.', 'crm__update_deal_stage', 'move deal stage'],
    ['Create a follow-up task to send the pilot contract by Friday.', 'crm__create_task', 'create follow-up task'],
    ['Add the pilot to the revenue spreadsheet.', 'files__append_rows', 'append rows spreadsheet'],
    ['Open an issue for the pilot environment setup.', 'tickets__create_issue', 'create issue'],
    ['Schedule a message to #sales for Monday 9:00 about the pilot.', 'chat__schedule_message', 'schedule message'],
  ],
  [
    ['What did the team discuss in #incidents today?', 'chat__channel_history', 'channel history'],
    ['Search the issues about the payment timeout.', 'tickets__search_issues', 'search issues'],
    ['Show me the code where the payment timeout is set.', 'code__search_code', 'search code'],
    ['Read the incident runbook document.', 'files__search_files', 'search documents'],
    ['Comment on the main issue with what we found.', 'tickets__comment_issue', 'comment on issue'],
    ['Log two hours on it.', 'tickets__log_work', 'log time spent'],
    ['Which commits went into main since yesterday?', 'code__list_commits', 'list commits'],
    ['React with :eyes: to the last message in #incidents.', 'chat__add_reaction', 'add emoji reaction'],
  ],
];
