// Setting Pilot up in the app ("Pilot settings"): what the engine answered to the dialog's
// model list, Test and Save. Never holds an API key: the dialog sends the typed key once and
// forgets it.

import type { Event, ProviderKind } from "../protocol";

export interface ModelList {
  models: string[];
  problem: string | null;
}

export interface ModelSetupState {
  /** The provider's own model list, by provider, once it answered. */
  lists: Partial<Record<ProviderKind, ModelList>>;
  /** Asked and not answered yet. */
  listing: boolean;
  testing: boolean;
  saving: boolean;
  /** The last Test's answer. */
  tested: { provider: ProviderKind; model: string; ok: boolean; message: string } | null;
  /** The last Save's answer. */
  saved: { provider: ProviderKind; problem: string | null } | null;
}

export function initialModelSetup(): ModelSetupState {
  return { lists: {}, listing: false, testing: false, saving: false, tested: null, saved: null };
}

/** The dialog asked for something: its old answer goes. */
export function setupAsked(state: ModelSetupState, what: "list" | "test" | "save"): ModelSetupState {
  switch (what) {
    case "list":
      return { ...state, listing: true };
    case "test":
      return { ...state, testing: true, tested: null, saved: null };
    case "save":
      return { ...state, saving: true, saved: null, tested: null };
  }
}

export function applySetupEvent(state: ModelSetupState, event: Event): ModelSetupState {
  switch (event.type) {
    case "provider_models":
      return {
        ...state,
        listing: false,
        lists: { ...state.lists, [event.provider]: { models: event.models, problem: event.problem ?? null } },
      };
    case "model_tested":
      return {
        ...state,
        testing: false,
        tested: { provider: event.provider, model: event.model, ok: event.ok, message: event.message },
      };
    case "model_settings_saved":
      return { ...state, saving: false, saved: { provider: event.provider, problem: event.problem ?? null } };
    default:
      return state;
  }
}

/** The provider's API address unless the settings name another. */
export function defaultBaseUrl(provider: ProviderKind): string {
  return provider === "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com/v1";
}

/** The providers as the dialog names them. */
export const PROVIDER_NAMES: Record<ProviderKind, string> = {
  anthropic: "Anthropic",
  openai: "OpenAI-compatible (OpenAI, Ollama, LM Studio, vLLM, …)",
};
