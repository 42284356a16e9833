// The "Connection settings" form: a connection's settings as editable text and back, with an
// error per field that says what the field takes. The engine checks again (it is the authority);
// this is so the user sees what is wrong before sending.

import type { ConnectionSettings, Sensitivity, ShellIntegration } from "../protocol";

export interface SettingsForm {
  forbidden: string;
  allowed: string;
  dangerous: string;
  sendFileContents: boolean;
  fileLimitKb: string;
  commandTimeoutS: string;
  outputLimitKb: string;
  outputLimitLines: string;
  backupTotalKb: string;
  backupMaxAgeDays: string;
  backupFileLimitKb: string;
  shellIntegration: ShellIntegration;
  sensitivity: Sensitivity;
}

/** The engine's defaults (`ConnectionSettings::default` in crates/protocol/src/settings.rs),
 * for settings the engine left out. */
export const DEFAULT_SETTINGS: Required<ConnectionSettings> = {
  forbidden_commands: [],
  allowed_commands: [],
  extra_dangerous_commands: [],
  send_file_contents: false,
  file_limit_kb: 64,
  command_timeout_s: 60,
  output_limit_kb: 16,
  output_limit_lines: 400,
  shell_integration: "inject",
  sensitivity: "internal",
  backup_total_kb: 512 * 1024,
  backup_max_age_days: 30,
  backup_file_limit_kb: 64 * 1024,
};

/** The numeric settings' ranges, as kaiport-protocol's `ConnectionSettings::number_range`. */
export const NUMBER_RANGES = {
  fileLimitKb: [1, 2048],
  commandTimeoutS: [1, 600],
  outputLimitKb: [1, 1024],
  outputLimitLines: [10, 100_000],
  backupTotalKb: [0, 100_000_000],
  backupMaxAgeDays: [1, 3650],
  backupFileLimitKb: [0, 4 * 1024 * 1024],
} as const;

export type SettingsErrors = Partial<Record<keyof SettingsForm, string>>;

export function formFromSettings(settings: ConnectionSettings): SettingsForm {
  const s = { ...DEFAULT_SETTINGS, ...settings };
  return {
    forbidden: s.forbidden_commands.join("\n"),
    allowed: s.allowed_commands.join("\n"),
    dangerous: s.extra_dangerous_commands.join("\n"),
    sendFileContents: s.send_file_contents,
    fileLimitKb: String(s.file_limit_kb),
    commandTimeoutS: String(s.command_timeout_s),
    outputLimitKb: String(s.output_limit_kb),
    outputLimitLines: String(s.output_limit_lines),
    backupTotalKb: String(s.backup_total_kb),
    backupMaxAgeDays: String(s.backup_max_age_days),
    backupFileLimitKb: String(s.backup_file_limit_kb),
    shellIntegration: s.shell_integration,
    sensitivity: s.sensitivity,
  };
}

/** One command pattern a line; blank lines are dropped. */
function lines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** The form as settings, or an error for each field that is wrong. */
export function settingsFromForm(
  form: SettingsForm,
): { settings: Required<ConnectionSettings> } | { errors: SettingsErrors } {
  const errors: SettingsErrors = {};
  const number = (field: keyof typeof NUMBER_RANGES, label: string): number => {
    const [min, max] = NUMBER_RANGES[field];
    const text = form[field].trim();
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) {
      errors[field] = `${label} must be a whole number from ${min} to ${max}.`;
    }
    return value;
  };
  const settings: Required<ConnectionSettings> = {
    forbidden_commands: lines(form.forbidden),
    allowed_commands: lines(form.allowed),
    extra_dangerous_commands: lines(form.dangerous),
    send_file_contents: form.sendFileContents,
    file_limit_kb: number("fileLimitKb", "Per-file limit (KB)"),
    command_timeout_s: number("commandTimeoutS", "Command timeout (s)"),
    output_limit_kb: number("outputLimitKb", "Output limit (KB)"),
    output_limit_lines: number("outputLimitLines", "Output limit (lines)"),
    shell_integration: form.shellIntegration,
    sensitivity: form.sensitivity,
    backup_total_kb: number("backupTotalKb", "Backups on the server, all together (KB)"),
    backup_max_age_days: number("backupMaxAgeDays", "Backups kept for (days)"),
    backup_file_limit_kb: number("backupFileLimitKb", "No backup of files over (KB)"),
  };
  const overlap = settings.allowed_commands.filter((c) => settings.forbidden_commands.includes(c));
  if (overlap.length > 0) {
    errors.allowed = `${overlap.join(", ")} cannot be both forbidden and allowed (forbidden wins); remove it from one list.`;
  }
  return Object.keys(errors).length > 0 ? { errors } : { settings };
}
