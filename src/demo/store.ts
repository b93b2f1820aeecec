import { DEFAULT_GUIDELINES } from './content/guidelines';

export interface Task {
  id: number;
  title: string;
  assignee: string | null;
  estimateHours: number | null;
  status: 'open' | 'done';
  createdAt: string;
  completedAt: string | null;
}

export interface PublishedDocument {
  slug: string;
  title: string;
  markdown: string;
  publishedAt: string;
}

type TaskRow = {
  id: number;
  title: string;
  assignee: string | null;
  estimate_hours: number | null;
  status: 'open' | 'done';
  created_at: number;
  completed_at: number | null;
};

/**
 * The demo task tracker's state, in its Durable Object's SQLite storage, so
 * it survives restarts and is shared by every MCP session.
 */
export class DemoStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS tasks (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      title TEXT NOT NULL,
      assignee TEXT,
      estimate_hours REAL,
      status TEXT NOT NULL DEFAULT 'open',
      created_at INTEGER NOT NULL,
      completed_at INTEGER
    )`);
    sql.exec(`CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS documents (
      slug TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      markdown TEXT NOT NULL,
      published_at INTEGER NOT NULL
    )`);
  }

  createTask(input: { title: string; assignee?: string | undefined; estimateHours?: number | undefined }): Task {
    const row = this.sql
      .exec<TaskRow>(
        `INSERT INTO tasks (title, assignee, estimate_hours, created_at) VALUES (?, ?, ?, ?) RETURNING *`,
        input.title,
        input.assignee ?? null,
        input.estimateHours ?? null,
        Date.now(),
      )
      .one();
    return toTask(row);
  }

  listTasks(status: 'open' | 'done' | 'all' = 'open'): Task[] {
    const rows =
      status === 'all'
        ? this.sql.exec<TaskRow>(`SELECT * FROM tasks ORDER BY id`)
        : this.sql.exec<TaskRow>(`SELECT * FROM tasks WHERE status = ? ORDER BY id`, status);
    return rows.toArray().map(toTask);
  }

  /** Marks a task done; `undefined` when there is no such task. */
  completeTask(id: number): Task | undefined {
    const row = this.sql
      .exec<TaskRow>(
        `UPDATE tasks SET status = 'done', completed_at = COALESCE(completed_at, ?) WHERE id = ? RETURNING *`,
        Date.now(),
        id,
      )
      .toArray()[0];
    return row && toTask(row);
  }

  guidelines(): string {
    return (
      this.sql.exec<{ value: string }>(`SELECT value FROM settings WHERE key = 'guidelines'`).toArray()[0]?.value ??
      DEFAULT_GUIDELINES
    );
  }

  setGuidelines(text: string): void {
    this.sql.exec(
      `INSERT INTO settings (key, value) VALUES ('guidelines', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      text,
    );
  }

  /** Publishes (or replaces) a document; `created` is false when the slug existed. */
  publish(doc: { slug: string; title: string; markdown: string }): { created: boolean } {
    const existed = this.document(doc.slug) !== undefined;
    this.sql.exec(
      `INSERT INTO documents (slug, title, markdown, published_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(slug) DO UPDATE SET title = excluded.title, markdown = excluded.markdown, published_at = excluded.published_at`,
      doc.slug,
      doc.title,
      doc.markdown,
      Date.now(),
    );
    return { created: !existed };
  }

  documents(): PublishedDocument[] {
    return this.sql.exec<DocumentRow>(`SELECT * FROM documents ORDER BY slug`).toArray().map(toDocument);
  }

  document(slug: string): PublishedDocument | undefined {
    const row = this.sql.exec<DocumentRow>(`SELECT * FROM documents WHERE slug = ?`, slug).toArray()[0];
    return row && toDocument(row);
  }
}

type DocumentRow = { slug: string; title: string; markdown: string; published_at: number };

function toDocument(row: DocumentRow): PublishedDocument {
  return {
    slug: row.slug,
    title: row.title,
    markdown: row.markdown,
    publishedAt: new Date(row.published_at).toISOString(),
  };
}

function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    title: row.title,
    assignee: row.assignee,
    estimateHours: row.estimate_hours,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    completedAt: row.completed_at === null ? null : new Date(row.completed_at).toISOString(),
  };
}
