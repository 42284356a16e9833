import { describe, expect, it } from "vitest";
import { applyModelsEvent, initialModels, keyMissing, keyWords, pick } from "./pilot-models";

describe("the model picker's state", () => {
  const state = applyModelsEvent(initialModels(), {
    type: "models",
    current: {
      provider: "anthropic",
      model: "claude-x",
      base_url: "http://127.0.0.1:9",
      api_key_env: "KEY",
      context_tokens: 1000,
    },
    providers: [
      {
        provider: "anthropic",
        settings: {
          provider: "anthropic",
          model: "claude-x",
          base_url: "http://127.0.0.1:9",
          api_key_env: "KEY",
          context_tokens: 1000,
        },
        key: { kind: "env", var: "KEY", set: true },
      },
      { provider: "openai", settings: null, key: { kind: "not_saved" } },
    ],
  });

  it("keeps the engine's answer and says whether each key is there, never what it is", () => {
    expect(state.loaded).toBe(true);
    expect(state.current?.model).toBe("claude-x");
    expect(keyWords({ kind: "saved" })).toBe("API key saved in the keychain");
    expect(keyWords({ kind: "env", var: "KEY", set: false })).toBe("API key from $KEY, which is not set");
    expect(keyMissing("anthropic", { kind: "not_saved" })).toBe(true);
    expect(keyMissing("openai", { kind: "not_saved" })).toBe(false);
  });

  it("builds a pick on the provider's own settings", () => {
    expect(pick(state, "anthropic", "claude-x")).toMatchObject({
      base_url: "http://127.0.0.1:9",
      api_key_env: "KEY",
      context_tokens: 1000,
    });
    // Another model: its window is the engine's to choose.
    expect(pick(state, "anthropic", "claude-y")).toMatchObject({ model: "claude-y", context_tokens: null });
    expect(pick(state, "openai", "llama3")).toEqual({
      provider: "openai",
      model: "llama3",
      base_url: null,
      api_key_env: null,
      context_tokens: null,
      max_output_tokens: null,
    });
  });
});
