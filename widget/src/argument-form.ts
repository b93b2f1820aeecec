import { h, uid } from './dom';
import type { Locale } from './i18n/locale';
import { Listbox } from './listbox';

export interface FieldSpec {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt's arguments or a resource template's variables, as a small form. */
export interface FormSpec {
  heading: string;
  description?: string;
  fields: FieldSpec[];
  /** Suggestions for a field (completion/complete), given every value so far. */
  complete?: (field: string, value: string, values: Record<string, string>) => Promise<string[]>;
  /** The text the prompt would send, for the Preview button (prompts only). */
  preview?: (values: Record<string, string>) => Promise<string>;
  submitLabel: string;
  submit: (values: Record<string, string>) => Promise<void>;
  cancel: () => void;
  /** Says something to screen readers (how many suggestions there are). */
  announce: (text: string) => void;
  locale: Locale;
}

/**
 * Renders the form. Errors — a missing required value, or the server
 * refusing an argument (400 invalid_argument) — are shown in the form, next
 * to what the person typed, and nothing is sent.
 */
export function argumentForm(spec: FormSpec): HTMLFormElement {
  const { locale } = spec;
  const t = locale.t.bind(locale);
  const inputs = new Map<string, HTMLInputElement>();
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const preview = h('pre', {
    class: 'preview',
    'aria-live': 'polite',
    'aria-label': t('forms.previewLabel'),
    hidden: true,
  });
  const values = () =>
    Object.fromEntries([...inputs].map(([name, input]) => [name, input.value.trim()]).filter(([, v]) => v !== ''));
  const fail = (message: string) => {
    error.textContent = message;
    error.hidden = false;
  };
  const missing = () => spec.fields.filter((f) => f.required && !inputs.get(f.name)!.value.trim()).map((f) => f.name);

  const fields = spec.fields.map((field) => {
    const descriptionId = uid('desc');
    const input = h('input', {
      name: field.name,
      autocomplete: 'off',
      required: field.required,
      'aria-describedby': field.description ? descriptionId : undefined,
    });
    inputs.set(field.name, input);
    const label = h('label', {}, field.required ? t('forms.required', { name: field.name }) : field.name, input);
    if (field.description) label.append(h('span', { id: descriptionId, class: 'hint' }, field.description));
    if (spec.complete) {
      const listbox = new Listbox<string>(
        input,
        (value) => {
          input.value = value;
          input.focus();
        },
        t('forms.suggestionsFor', { name: field.name }),
        spec.announce,
        '',
        () => locale,
      );
      label.append(listbox.el);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const suggest = () => {
        clearTimeout(timer);
        timer = setTimeout(async () => {
          try {
            const suggestions = await spec.complete!(field.name, input.value, values());
            if (input.ownerDocument && (input.getRootNode() as Document | ShadowRoot).activeElement === input) {
              listbox.show(suggestions.filter((s) => s !== input.value).map((s) => ({ label: s, value: s })));
            }
          } catch {
            listbox.close(); // Suggestions are a help, not a requirement.
          }
        }, 120);
      };
      input.addEventListener('input', suggest);
      input.addEventListener('focus', suggest);
    }
    return label;
  });

  const run = h('button', { type: 'submit', class: 'primary' }, spec.submitLabel);
  const form = h(
    'form',
    { class: 'form', 'aria-label': spec.heading },
    h('h3', {}, spec.heading),
    spec.description ? h('p', { class: 'hint' }, spec.description) : null,
    ...fields,
    error,
    preview,
    h(
      'div',
      { class: 'row' },
      run,
      spec.preview
        ? h('button', { type: 'button', class: 'secondary', onclick: () => void showPreview() }, t('forms.preview'))
        : null,
      h('button', { type: 'button', class: 'secondary', onclick: () => spec.cancel() }, t('forms.cancel')),
    ),
  );

  async function showPreview() {
    error.hidden = true;
    if (missing().length) return fail(t('forms.fillIn', { names: locale.list(missing()) }));
    try {
      preview.textContent = await spec.preview!(values());
      preview.hidden = false;
    } catch (e) {
      fail((e as Error).message);
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    if (missing().length) return fail(t('forms.fillIn', { names: locale.list(missing()) }));
    run.disabled = true;
    try {
      await spec.submit(values());
    } catch (e) {
      fail((e as Error).message);
    } finally {
      run.disabled = false;
    }
  });
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      spec.cancel();
    }
  });
  return form;
}
