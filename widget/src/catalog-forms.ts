import { argumentForm } from './argument-form';
import { expandTemplate, templateVariables, type PromptChoice } from './catalog-menus';
import type { Locale } from './i18n/locale';
import type { Attachment, CompleteRequest, ResourceTemplate } from './types';

/** What the forms need from the widget. */
export interface FormDeps {
  suggest(
    server: string,
    ref: CompleteRequest['ref'],
    name: string,
    value: string,
    values: Record<string, string>,
  ): Promise<string[]>;
  /** The prompt's text with these arguments (prompts/get); throws the server's refusal in plain words. */
  previewPrompt(server: string, name: string, values: Record<string, string>): Promise<string>;
  /** Starts the prompt's turn; throws (and runs nothing) when a turn is already running. */
  runPrompt(server: string, name: string, values: Record<string, string>): Promise<void>;
  attach(attachment: Attachment): void;
  close(): void;
  announce(text: string): void;
  locale(): Locale;
}

/** The slash menu's form: a prompt's arguments, suggestions, Preview, Run. */
export function promptForm({ server, prompt }: PromptChoice, deps: FormDeps): HTMLFormElement {
  return argumentForm({
    heading: `/${prompt.name}${prompt.title ? ` — ${prompt.title}` : ''}`,
    ...(prompt.description ? { description: prompt.description } : {}),
    fields: (prompt.arguments ?? []).map((a) => ({
      name: a.name,
      required: !!a.required,
      ...(a.description ? { description: a.description } : {}),
    })),
    complete: (name, value, values) =>
      deps.suggest(server, { type: 'ref/prompt', name: prompt.name }, name, value, values),
    preview: (values) => deps.previewPrompt(server, prompt.name, values),
    submitLabel: deps.locale().t('forms.run'),
    submit: async (values) => {
      // Checked by the server first, so a refused argument is shown here, in the form, and nothing runs.
      await deps.previewPrompt(server, prompt.name, values);
      await deps.runPrompt(server, prompt.name, values);
    },
    cancel: deps.close,
    announce: deps.announce,
    locale: deps.locale(),
  });
}

/** The @ menu's form for a resource template: its variables, with suggestions; builds the URI to attach. */
export function templateForm(server: string, template: ResourceTemplate, deps: FormDeps): HTMLFormElement {
  const variables = templateVariables(template.uriTemplate);
  return argumentForm({
    heading: deps.locale().t('forms.attachTemplate', { title: template.title ?? template.name }),
    description: template.uriTemplate,
    fields: variables.map((name) => ({ name, required: true })),
    complete: (name, value, values) =>
      deps.suggest(server, { type: 'ref/resource', uri: template.uriTemplate }, name, value, values),
    submitLabel: deps.locale().t('forms.attach'),
    submit: async (values) => {
      deps.close();
      deps.attach({
        server,
        uri: expandTemplate(template.uriTemplate, values),
        title: `${template.title ?? template.name}: ${variables.map((v) => values[v]).join(', ')}`,
        ...(template.mimeType ? { mimeType: template.mimeType } : {}),
      });
    },
    cancel: deps.close,
    announce: deps.announce,
    locale: deps.locale(),
  });
}
