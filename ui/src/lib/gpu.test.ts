import { describe, expect, it } from "vitest";
import { isMaskedRenderer, isSoftwareRenderer } from "./gpu";

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

describe("isMaskedRenderer", () => {
  const linuxWebKit = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)";
  const mac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)";
  const iPad = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)";
  it("sees WebKit's stand-in name off Apple hardware", () => {
    expect(isMaskedRenderer("Apple GPU", linuxWebKit)).toBe(true);
  });
  it("believes it on Apple hardware, and believes every other name", () => {
    expect(isMaskedRenderer("Apple GPU", mac)).toBe(false);
    expect(isMaskedRenderer("Apple GPU", iPad)).toBe(false);
    expect(isMaskedRenderer("ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)", linuxWebKit)).toBe(
      false,
    );
    expect(isMaskedRenderer("", linuxWebKit)).toBe(false);
  });
});
