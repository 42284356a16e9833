import { describe, expect, it } from "vitest";
import { applySetupEvent, initialModelSetup, setupAsked } from "./pilot-setup";

describe("the Pilot settings dialog's answers", () => {
  it("keeps each provider's model list, or why there is none", () => {
    let state = setupAsked(initialModelSetup(), "list");
    expect(state.listing).toBe(true);
    state = applySetupEvent(state, { type: "provider_models", provider: "openai", models: ["a", "b"] });
    state = applySetupEvent(state, { type: "provider_models", provider: "anthropic", models: [], problem: "refused" });
    expect(state.listing).toBe(false);
    expect(state.lists.openai).toEqual({ models: ["a", "b"], problem: null });
    expect(state.lists.anthropic).toEqual({ models: [], problem: "refused" });
  });

  it("a new Test or Save forgets the last answer of either", () => {
    let state = applySetupEvent(setupAsked(initialModelSetup(), "test"), {
      type: "model_tested",
      provider: "openai",
      model: "m",
      ok: false,
      message: "the key was refused",
    });
    expect(state.tested?.ok).toBe(false);
    expect(state.testing).toBe(false);
    state = setupAsked(state, "save");
    expect(state.tested).toBeNull();
    expect(state.saving).toBe(true);
    state = applySetupEvent(state, { type: "model_settings_saved", provider: "openai" });
    expect(state.saved).toEqual({ provider: "openai", problem: null });
    expect(setupAsked(state, "test").saved).toBeNull();
  });

  it("leaves every other event alone", () => {
    const state = initialModelSetup();
    expect(applySetupEvent(state, { type: "models", providers: [] })).toBe(state);
  });
});
