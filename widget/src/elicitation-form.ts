import type { ElicitationAnswerBody } from '../../shared/api/conversations';
import type { ElicitationNotice } from '../../shared/api/stream';
import { h } from './dom';
import { ENGLISH, type Locale } from './i18n/locale';

/** What a form sends: the API's body type (strings, numbers, yes/no, lists of strings). */
type Answers = NonNullable<ElicitationAnswerBody['content']>;

/** A server's question as the stream carries it (a `data-elicitation` part). */
export type Elicitation = ElicitationNotice;

type FieldSchema = NonNullable<Elicitation['requestedSchema']['properties']>[string];

export type ElicitationAnswer = (id: string, action: ElicitationAnswerBody['action'], content?: Answers) => void;

/**
 * A server's question as a form (the flat schemas elicitation allows:
 * text, numbers, yes/no, one of a list), or, once answered, what was
 * answered. The service checks the answer against the server's schema too.
 */
export function elicitationCard(
  question: Elicitation,
  answer: ElicitationAnswer | undefined,
  locale: Locale = ENGLISH,
): HTMLElement {
  const t = locale.t.bind(locale);
  const label = t('elicitation.asks', { server: question.server });
  if (question.status !== 'pending') {
    const said =
      question.status === 'accept'
        ? t('elicitation.answered', {
            answers:
              Object.entries(question.content ?? {})
                .map(([k, v]) => `${k} = ${String(v)}`)
                .join(', ') || t('elicitation.yes'),
          })
        : t(
            question.status === 'expired'
              ? 'elicitation.expired'
              : question.status === 'decline'
                ? 'elicitation.declined'
                : 'elicitation.cancelled',
          );
    return h(
      'div',
      { class: 'approval', role: 'group', 'aria-label': label },
      h('p', {}, `${question.server}: ${question.message}`),
      h('p', { class: 'meta' }, said),
    );
  }
  const fields = Object.entries(question.requestedSchema.properties ?? {}).map(([name, schema]) =>
    field(name, schema, question.requestedSchema.required?.includes(name) ?? false),
  );
  const read = (): Answers => Object.fromEntries(fields.flatMap((f) => f.value()));
  const disabled = !answer;
  const form = h(
    'form',
    {
      class: 'approval',
      role: 'group',
      'aria-label': label,
      onsubmit: (e: Event) => (e.preventDefault(), answer?.(question.id, 'accept', read())),
    },
    h('p', {}, `${question.server}: ${question.message}`),
    ...fields.map((f) => f.el),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'primary', disabled }, t('elicitation.send')),
      h(
        'button',
        { type: 'button', class: 'secondary', disabled, onclick: () => answer?.(question.id, 'decline') },
        t('elicitation.decline'),
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', disabled, onclick: () => answer?.(question.id, 'cancel') },
        t('elicitation.cancel'),
      ),
    ),
  );
  return form;
}

function field(
  name: string,
  schema: FieldSchema,
  required: boolean,
): { el: HTMLElement; value(): Array<[string, Answers[string]]> } {
  const text = schema.title ?? schema.description ?? name;
  if (schema.type === 'boolean') {
    const input = h('input', { type: 'checkbox', name, checked: schema.default === true }) as HTMLInputElement;
    return { el: h('label', { class: 'field' }, input, ` ${text}`), value: () => [[name, input.checked]] };
  }
  const choices = choicesOf(schema);
  if (choices) {
    const select = h(
      'select',
      { name, required },
      ...choices.map(({ value, label }) => h('option', { value, selected: schema.default === value }, label)),
    ) as HTMLSelectElement;
    return { el: h('label', { class: 'field' }, `${text} `, select), value: () => [[name, select.value]] };
  }
  const numeric = schema.type === 'number' || schema.type === 'integer';
  const input = h('input', {
    type: numeric ? 'number' : 'text',
    name,
    required,
    ...(schema.type === 'integer' ? { step: '1' } : {}),
  }) as HTMLInputElement;
  if (schema.default !== undefined) input.value = String(schema.default);
  return {
    el: h('label', { class: 'field' }, `${text} `, input),
    value: () => (input.value === '' ? [] : [[name, numeric ? Number(input.value) : input.value]]),
  };
}

/**
 * One of a list, as elicitation schemas write it: `enum` (with 2025's `enumNames` for labels), or titled choices
 * (`oneOf` / `anyOf` of `{const, title}`, as server-everything's research task asks). The value sent is the choice's.
 */
function choicesOf(schema: FieldSchema): Array<{ value: string; label: string }> | undefined {
  if (schema.enum) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return schema.enum.map((value, i) => ({ value, label: typeof names[i] === 'string' ? names[i] : value }));
  }
  const titled = (schema.oneOf ?? schema.anyOf) as unknown;
  if (!Array.isArray(titled)) return undefined;
  const choices = titled.flatMap((choice) => {
    const { const: value, title } = (choice ?? {}) as { const?: unknown; title?: unknown };
    return typeof value === 'string' ? [{ value, label: typeof title === 'string' ? title : value }] : [];
  });
  return choices.length ? choices : undefined;
}
