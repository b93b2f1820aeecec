import { SAFE_FILE_NAME } from '../../shared/api/files';

/** Most characters of a kept name (the R2 key adds the tenant and conversation, well under R2's 1,024 bytes). */
const MAX_NAME_CHARS = 128;

/**
 * An uploaded file's name made safe to be a path segment of its R2 key and
 * its `upload://` URI: the last segment of whatever path a client sent,
 * accents dropped (`Résumé.pdf` → `Resume.pdf`), every other character but
 * letters, digits, `.`, `_` and `-` turned into `_`, no leading dot (no
 * hidden or `..` names), at most 128 characters with the extension kept.
 * The name as uploaded stays in the object's metadata (its title).
 *
 * @example safeFileName('C:\\Users\\me\\Q3 report (final).pdf') // 'Q3_report_final.pdf'
 */
export function safeFileName(uploaded: string): string {
  const last = uploaded.split(/[\\/]/).pop() ?? '';
  const plain = last
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^_+(?=\.[^.]*$)/, 'file')
    .replace(/^[._]+/, '')
    .replace(/_+(\.[A-Za-z0-9]+)$/, '$1');
  const name = plain || 'file';
  if (name.length <= MAX_NAME_CHARS) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  return name.slice(0, MAX_NAME_CHARS - extension.length) + extension;
}

/**
 * `name`, or — when `taken` has it — the same with `-2`, `-3`… before its
 * extension: a second upload of `report.pdf` is `report-2.pdf`, so an
 * upload's URI never names two contents (what the model read earlier stays
 * what that URI holds).
 */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${stem.slice(0, MAX_NAME_CHARS - extension.length - suffix.length)}${suffix}${extension}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Whether `name` is one this service could have kept (a `DELETE …/files/{name}` of anything else is a 404 without a lookup). */
export const isSafeFileName = (name: string) => SAFE_FILE_NAME.test(name);
