// Which syntax the file editor gives a file, from its name alone (config files rarely say more
// and reading the content to guess would guess wrong on templates). Kept apart from CodeMirror so
// the page can decide without loading the editor.

export type EditorLanguage = "shell" | "yaml" | "json" | "toml" | "ini" | "nginx" | "dockerfile";

/** Whole names that say what they are. */
const NAMES: Record<string, EditorLanguage> = {
  ".bashrc": "shell",
  ".bash_profile": "shell",
  ".bash_logout": "shell",
  ".profile": "shell",
  ".zshrc": "shell",
  ".zprofile": "shell",
  ".zshenv": "shell",
  "nginx.conf": "nginx",
  dockerfile: "dockerfile",
  containerfile: "dockerfile",
  ".gitconfig": "ini",
  ".editorconfig": "ini",
  "my.cnf": "ini",
  "php.ini": "ini",
  environment: "shell",
  ".env": "shell",
};

const EXTENSIONS: Record<string, EditorLanguage> = {
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  ksh: "shell",
  env: "shell",
  yml: "yaml",
  yaml: "yaml",
  json: "json",
  jsonc: "json",
  toml: "toml",
  ini: "ini",
  cfg: "ini",
  cnf: "ini",
  conf: "ini",
  properties: "ini",
  service: "ini",
  socket: "ini",
  timer: "ini",
  mount: "ini",
  network: "ini",
  container: "ini",
};

/** The syntax for the file at `path`; `null`: plain text. */
export function languageFor(path: string): EditorLanguage | null {
  const name = (path.split("/").pop() ?? "").toLowerCase();
  const named = NAMES[name];
  if (named !== undefined) return named;
  // nginx's own folders hold its syntax whatever the file is called.
  if (/(^|\/)nginx\/(conf\.d|sites-(available|enabled)|snippets)\//.test(path) || path.includes("/nginx/nginx.conf")) {
    return "nginx";
  }
  if (name.startsWith("dockerfile.") || name.endsWith(".dockerfile")) return "dockerfile";
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  return EXTENSIONS[name.slice(dot + 1)] ?? null;
}

/** The name people know the syntax by, for the editor's status line. */
export function languageName(language: EditorLanguage | null): string {
  switch (language) {
    case null:
      return "Plain text";
    case "shell":
      return "Shell";
    case "yaml":
      return "YAML";
    case "json":
      return "JSON";
    case "toml":
      return "TOML";
    case "ini":
      return "INI";
    case "nginx":
      return "nginx";
    case "dockerfile":
      return "Dockerfile";
  }
}
