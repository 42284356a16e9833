import { describe, expect, it } from "vitest";
import { languageFor, languageName } from "./languages";

describe("languageFor", () => {
  it("knows config formats by extension and by name", () => {
    expect(languageFor("/etc/app/config.yml")).toBe("yaml");
    expect(languageFor("/srv/x/package.json")).toBe("json");
    expect(languageFor("/home/a/.bashrc")).toBe("shell");
    expect(languageFor("/opt/deploy.sh")).toBe("shell");
    expect(languageFor("/etc/mysql/my.cnf")).toBe("ini");
    expect(languageFor("/etc/systemd/system/web.service")).toBe("ini");
    expect(languageFor("/srv/app/Cargo.toml")).toBe("toml");
    expect(languageFor("/srv/app/Dockerfile")).toBe("dockerfile");
  });

  it("gives nginx's folders nginx syntax whatever the name", () => {
    expect(languageFor("/etc/nginx/nginx.conf")).toBe("nginx");
    expect(languageFor("/etc/nginx/sites-available/default")).toBe("nginx");
    expect(languageFor("/etc/nginx/conf.d/app.conf")).toBe("nginx");
  });

  it("leaves unknown files plain", () => {
    expect(languageFor("/etc/hosts")).toBeNull();
    expect(languageFor("/var/log/syslog.1")).toBeNull();
    expect(languageName(null)).toBe("Plain text");
    expect(languageName("yaml")).toBe("YAML");
  });
});
