import { type AppConfig, loadConfig, type Settings } from '../config';
import { notFound } from '../errors';
import { type ResolvedModel, tenantAcceptsImages, tenantModel } from '../models/resolve';
import type { Owner } from '../owner';
import type { TurnSettings, TurnTerms } from '../turn/host';
import type { SkillRef } from '../../shared/api/conversations';
import type { ConversationRecord } from './record';

/** What tests may set for a conversation (through `runInDurableObject`): a scripted model, other settings. */
export interface TermsOverrides {
  model?: ResolvedModel | undefined;
  settings?: Partial<Settings> | undefined;
}

/**
 * What every part of one conversation reads of its surroundings, resolved
 * in one place: the configuration, the settings, the owner (from the
 * existence record), and the model (the tenant's `model`, else `MODEL`).
 * Parts take this object instead of calling loadConfig(env) themselves and
 * threading a model and settings through every call; tests set theirs with
 * `override`, so the production path has no test-only parameters.
 */
export class ConversationTerms implements TurnSettings {
  private overrides: TermsOverrides = {};

  constructor(
    readonly env: Env,
    /** The conversation id. */
    readonly name: string,
    /** The existence record, or undefined (never created, or deleted). */
    readonly row: () => ConversationRecord | undefined,
  ) {}

  config(): AppConfig {
    return loadConfig(this.env); // parsed once per isolate (memoised by the env)
  }

  settings(): Settings {
    const { settings } = this.config();
    return this.overrides.settings ? { ...settings, ...this.overrides.settings } : settings;
  }

  /** The existence record, or 404. */
  existing(): ConversationRecord {
    const row = this.row();
    if (!row) throw notFound(`Conversation ${this.name}`);
    return row;
  }

  /** The tenant, once the conversation exists (request-scope.ts names it in log lines). */
  tenant(): string | undefined {
    return this.row()?.owner.tenant;
  }

  owner(): Owner {
    return this.existing().owner;
  }

  model(): ResolvedModel {
    return this.overrides.model ?? tenantModel(this.env, this.row()?.owner.tenant);
  }

  /** Whether the model takes image parts (false when no model can be resolved: a preview needs none). */
  acceptsImages(): boolean {
    return this.overrides.model?.acceptsImages ?? tenantAcceptsImages(this.env, this.row()?.owner.tenant);
  }

  /** What one turn runs on, read once when it starts (turn/host.ts), with the skills the conversation pins. */
  forTurn(pinnedSkills: SkillRef[]): TurnTerms {
    return {
      model: this.model(),
      settings: this.settings(),
      config: this.config(),
      owner: this.owner(),
      pinnedSkills,
    };
  }

  /** For tests: the model and settings this conversation uses until the next call (test/helpers/conversation.ts sets them around one turn). */
  override(overrides: TermsOverrides): void {
    this.overrides = overrides;
  }
}
