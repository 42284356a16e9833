// Which models Pilot can use, from the engine's `models` answer: the one used unless the user
// picks another, each provider's settings, and whether its API key is there (never the key).

import type { Event, KeyStatus, ModelChoice, ModelSettings, ProviderKind } from "../protocol";

export interface ModelsState {
  /** False until the engine answered `list_models`. */
  loaded: boolean;
  current: ModelSettings | null;
  providers: ModelChoice[];
  problem: string | null;
}

export function initialModels(): ModelsState {
  return { loaded: false, current: null, providers: [], problem: null };
}

export function applyModelsEvent(state: ModelsState, event: Event): ModelsState {
  if (event.type !== "models") {
    return state;
  }
  return {
    loaded: true,
    current: event.current ?? null,
    providers: event.providers,
    problem: event.problem ?? null,
  };
}

/** Whether the key of a provider is there, in words. */
export function keyWords(key: KeyStatus | undefined): string {
  switch (key?.kind) {
    case "saved":
      return "API key saved in the keychain";
    case "not_saved":
      return "no API key saved";
    case "env":
      return key.set ? `API key from $${key.var}` : `API key from $${key.var}, which is not set`;
    case "unknown":
      return `API key unknown (${key.error})`;
    default:
      return "API key unknown";
  }
}

/** Whether a message could go out with this key (a local OpenAI-compatible server needs none). */
export function keyMissing(provider: ProviderKind, key: KeyStatus | undefined): boolean {
  if (key === undefined) {
    return false;
  }
  if (key.kind === "env") {
    return !key.set;
  }
  return key.kind === "not_saved" && provider === "anthropic";
}

/** The settings a message uses: the tab's pick, else the server's. */
export function effectiveModel(state: ModelsState, picked: ModelSettings | null): ModelSettings | null {
  return picked ?? state.current;
}

/** The settings for `provider` with `model` as the model name: the provider's own settings
 * (base URL, window, key variable) when it has some, else its defaults. */
export function pick(state: ModelsState, provider: ProviderKind, model: string): ModelSettings {
  const known = state.providers.find((p) => p.provider === provider)?.settings;
  const base: ModelSettings = known ?? {
    provider,
    base_url: null,
    model: "",
    api_key_env: null,
    context_tokens: null,
    max_output_tokens: null,
  };
  // Another model of the same provider may have another window: let the engine choose it.
  const sameModel = base.model === model;
  return { ...base, model, context_tokens: sameModel ? (base.context_tokens ?? null) : null };
}

/** The key status of `provider`. */
export function keyOf(state: ModelsState, provider: ProviderKind): KeyStatus | undefined {
  return state.providers.find((p) => p.provider === provider)?.key;
}
