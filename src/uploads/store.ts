/** Where one conversation's uploads live: its tenant and its id (the R2 key prefix). */
export interface UploadScope {
  tenant: string;
  conversation: string;
}

/** One stored upload, as its R2 object's metadata says. */
export interface StoredUpload {
  /** The safe name: the last segment of its key and of its URI. */
  name: string;
  /** The name as uploaded. */
  title: string;
  mimeType: string;
  size: number;
  /** ms since the epoch. */
  uploadedAt: number;
  /** The end user who uploaded it. */
  user: string;
}

/** A file about to be stored: its bytes are only ever R2's. */
export interface NewUpload {
  name: string;
  title: string;
  mimeType: string;
  body: Blob;
}

/**
 * One conversation's files in the `UPLOADS` R2 bucket, under
 * `<tenant>/<conversation>/<name>`: the bytes are the object, and what the
 * service knows of each file is the object's own metadata (type, name as
 * uploaded, size, when, by whom) — nothing of it is kept in KV or a Durable
 * Object. Every key this class touches is under its scope's prefix.
 */
export class UploadStore {
  private readonly prefix: string;

  constructor(
    private readonly bucket: R2Bucket,
    scope: UploadScope,
  ) {
    this.prefix = `${scope.tenant}/${scope.conversation}/`;
  }

  /** Every upload of the conversation, oldest first. */
  async list(): Promise<StoredUpload[]> {
    const uploads: StoredUpload[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.bucket.list({
        prefix: this.prefix,
        include: ['httpMetadata', 'customMetadata'],
        ...(cursor ? { cursor } : {}),
      });
      for (const object of page.objects) uploads.push(this.describe(object));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return uploads.sort((a, b) => a.uploadedAt - b.uploadedAt || a.name.localeCompare(b.name));
  }

  /** One upload with its bytes, or undefined. */
  async get(name: string): Promise<{ upload: StoredUpload; bytes: ArrayBuffer } | undefined> {
    const object = await this.bucket.get(this.prefix + name);
    if (!object) return undefined;
    return { upload: this.describe(object), bytes: await object.arrayBuffer() };
  }

  async has(name: string): Promise<boolean> {
    return (await this.bucket.head(this.prefix + name)) !== null;
  }

  async put(file: NewUpload, user: string, at = Date.now()): Promise<StoredUpload> {
    const object = await this.bucket.put(this.prefix + file.name, file.body, {
      httpMetadata: { contentType: file.mimeType },
      customMetadata: {
        title: encodeURIComponent(file.title),
        user: encodeURIComponent(user),
        uploadedAt: String(at),
      },
    });
    return this.describe(object);
  }

  async delete(names: string[]): Promise<void> {
    if (names.length) await this.bucket.delete(names.map((name) => this.prefix + name));
  }

  /** Deletes every upload of the conversation; returns how many there were. */
  async deleteAll(): Promise<number> {
    let count = 0;
    for (;;) {
      const page = await this.bucket.list({ prefix: this.prefix });
      if (!page.objects.length) return count;
      await this.bucket.delete(page.objects.map((o) => o.key));
      count += page.objects.length;
    }
  }

  private describe(object: R2Object): StoredUpload {
    const meta = object.customMetadata ?? {};
    const name = object.key.slice(this.prefix.length);
    return {
      name,
      title: decoded(meta.title) ?? name,
      mimeType: object.httpMetadata?.contentType ?? 'application/octet-stream',
      size: object.size,
      uploadedAt: Number(meta.uploadedAt) || object.uploaded.getTime(),
      user: decoded(meta.user) ?? '',
    };
  }
}

function decoded(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
