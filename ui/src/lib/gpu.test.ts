import { describe, expect, it } from "vitest";
import { isSoftwareRenderer } from "./gpu";

describe("isSoftwareRenderer", () => {
  it("knows the CPU renderers and leaves GPUs alone", () => {
    for (const name of [
      "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)",
      "llvmpipe (LLVM 19.1.7, 256 bits)",
      "Mesa softpipe",
      "Microsoft Basic Render Driver",
    ]) {
      expect(isSoftwareRenderer(name)).toBe(true);
    }
    for (const name of [
      "ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)",
      "Apple M2",
      "AMD Radeon RX 6800 (radeonsi, navi21, LLVM 17.0.6, DRM 3.54)",
      "",
    ]) {
      expect(isSoftwareRenderer(name)).toBe(false);
    }
  });
});
