import type { ChatApi } from './api';
import { h, svgIcon } from './dom';
import type { Locale } from './i18n/locale';
import type { Attachment } from './types';

/** One file the person gave the chat: uploading (with its progress), or stored and ready to go with the next message. */
interface PendingFile {
  file: File;
  loaded: number;
  /** Set once stored: the chip's attachment (`server: "uploads"`). */
  attachment?: Attachment;
  /** Stops the upload (a chip removed while it uploads). */
  stop: AbortController;
  done: Promise<void>;
  /** Its chip, kept while it lives (never redrawn: a focused Remove button keeps the focus as the upload ends). */
  chip: HTMLElement;
}

export interface FileUploadsDeps {
  api: ChatApi;
  /** The conversation the files go to (created on the first file, as on the first message). */
  conversation(): Promise<string>;
  /** The list changed (a file in, stored, or out): the conversation's catalog is not what it was. */
  changed(): void;
  /** Where the focus goes after a chip is removed (the message box). */
  focus(): void;
  /** Said to screen readers (the widget's polite live region). */
  announce(text: string): void;
  /** A refusal, in words (the service's message names the limit). */
  refused(file: File, error: unknown): void;
  locale(): Locale;
}

/**
 * The person's own files in the composer: each is uploaded as soon as it is attached (the attach button, a drop, a
 * paste) — so its progress shows while the question is typed, a refusal comes at once with the limit named, and the
 * message itself is sent as before, naming the files by reference (`{server: "uploads", uri}`). A chip removed before
 * sending deletes its file, so the conversation keeps only what was sent.
 */
export class FileUploads {
  /** The chips of the files, in the composer. */
  readonly el = h('div', { class: 'chips', role: 'list', hidden: true });
  private files: PendingFile[] = [];
  /** What each stored file is, by URI: the sent message's chips say its name and size (the catalog may not yet). */
  private readonly known = new Map<string, Attachment>();

  constructor(private readonly deps: FileUploadsDeps) {
    this.relabel();
  }

  /** The list's name in the widget's language (again when the language changes). */
  relabel(): void {
    this.el.setAttribute('aria-label', this.deps.locale().t('files.list'));
  }

  private get locale(): Locale {
    return this.deps.locale();
  }

  get uploading(): boolean {
    return this.files.some((f) => !f.attachment);
  }

  add(files: Iterable<File>): void {
    for (const file of files) {
      const entry = { file, loaded: 0, stop: new AbortController() } as PendingFile;
      entry.chip = this.chip(entry);
      this.files.push(entry);
      this.el.append(entry.chip);
      entry.done = this.upload(entry);
      this.deps.announce(this.locale.t('files.uploading', { name: file.name, size: this.locale.size(file.size) }));
    }
    this.changed();
  }

  private async upload(entry: PendingFile): Promise<void> {
    const { api } = this.deps;
    try {
      const id = await this.deps.conversation();
      const stored = await api.uploadFile(
        id,
        entry.file,
        (loaded) => {
          entry.loaded = loaded;
          this.showProgress(entry);
        },
        entry.stop.signal,
      );
      entry.attachment = {
        server: 'uploads',
        uri: stored.uri,
        title: stored.title,
        mimeType: stored.mimeType,
        size: stored.size,
      };
      this.known.set(stored.uri, entry.attachment);
      // Removed while its answer was on the way: it goes.
      if (!this.files.includes(entry)) void api.deleteFile(id, stored.name).catch(() => {});
      else {
        entry.chip.dataset.state = 'done';
        entry.chip.querySelector('progress')?.remove();
        this.deps.announce(this.locale.t('files.attached', { name: entry.file.name }));
      }
      this.deps.changed();
    } catch (error) {
      if (!this.files.includes(entry)) return;
      this.drop(entry);
      this.deps.refused(entry.file, error);
    }
  }

  private showProgress(entry: PendingFile): void {
    const bar = entry.chip.querySelector('progress');
    if (!bar) return;
    const percent = entry.file.size ? Math.min(100, Math.round((entry.loaded / entry.file.size) * 100)) : 100;
    bar.value = percent;
    bar.setAttribute('aria-label', this.progressLabel(entry.file.name, percent));
  }

  private drop(entry: PendingFile): void {
    this.files = this.files.filter((f) => f !== entry);
    entry.chip.remove();
    this.changed();
  }

  private changed(): void {
    this.el.hidden = !this.files.length;
    this.deps.changed();
  }

  /** Waits for every upload under way (Send waits for them). */
  async settled(): Promise<void> {
    await Promise.all(this.files.map((f) => f.done));
  }

  /** The stored files, taken for the message being sent. */
  take(): Attachment[] {
    const ready = this.files.filter((f) => f.attachment);
    for (const entry of ready) this.drop(entry);
    return ready.map((f) => f.attachment!);
  }

  /** A message the service refused: its files come back as chips (still stored). */
  restore(attachments: Attachment[]): void {
    for (const attachment of attachments) {
      const file = new File([], attachment.title);
      const entry = {
        file,
        loaded: 0,
        attachment,
        stop: new AbortController(),
        done: Promise.resolve(),
      } as PendingFile;
      entry.chip = this.chip(entry);
      this.files.push(entry);
      this.el.append(entry.chip);
    }
    this.changed();
  }

  /** What the widget knows of an uploaded file's URI, for a chip. */
  describe(uri: string): Attachment | undefined {
    return this.known.get(uri);
  }

  /** Another conversation is shown: the files not sent go (each deleted from the one they were uploaded to). */
  clear(): void {
    for (const entry of [...this.files]) this.remove(entry, false);
  }

  private remove(entry: PendingFile, focus = true): void {
    this.drop(entry);
    entry.stop.abort();
    // upload://<conversation>/<name>: deleted from the conversation it went to.
    const [, , conversation, name] = entry.attachment?.uri.split('/') ?? [];
    if (conversation && name) void this.deps.api.deleteFile(conversation, name).catch(() => {});
    if (!focus) return;
    this.deps.announce(this.locale.t('files.removed', { name: entry.attachment?.title ?? entry.file.name }));
    this.deps.focus();
  }

  private progressLabel(name: string, percent: number): string {
    return this.locale.t('files.progress', { name, percent: this.locale.number(percent / 100, { style: 'percent' }) });
  }

  /** A file's chip: name and size, a progress bar while it uploads, and a button to remove it. */
  private chip(entry: PendingFile): HTMLElement {
    const title = entry.attachment?.title ?? entry.file.name;
    const size = entry.attachment?.size ?? entry.file.size;
    return h(
      'span',
      { class: 'chip file', role: 'listitem', 'data-state': entry.attachment ? 'done' : 'uploading' },
      h('span', { class: 'name' }, `${title} · ${this.locale.size(size)}`),
      entry.attachment ? null : h('progress', { max: 100, value: 0, 'aria-label': this.progressLabel(title, 0) }),
      h(
        'button',
        {
          type: 'button',
          'aria-label': this.locale.t('files.remove', { name: title }),
          onclick: () => this.remove(entry),
        },
        '×',
      ),
    );
  }
}

/** The paperclip of the attach button (its name is the button's label; the drawing is hidden from screen readers). */
export const paperclip = (): SVGSVGElement =>
  svgIcon('M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5', 18);
