//! Per-connection settings (docs/policy.md). The same names are used in the config file, on the
//! CLI (`--setting NAME=VALUE`), in the protocol and in the UI.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// How much Pilot may do on its own in a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Every change asks; allowed commands run.
    #[default]
    Ask,
    /// Everything that is not forbidden, dangerous, lock-out or unprovable runs.
    Autopilot,
    /// Read-only look-around, then a plan for the user to approve.
    Plan,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::Autopilot => "autopilot",
            Mode::Plan => "plan",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "kebab-case")]
pub enum ShellIntegration {
    /// Inject kaiport's OSC 133 snippet on connect (invisible to the user).
    #[default]
    Inject,
    /// Use OSC 133 marks if the shell already emits them; inject nothing.
    DetectOnly,
    /// Heuristic only.
    Off,
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
    Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Sensitivity {
    Public,
    #[default]
    Internal,
    Confidential,
    Restricted,
}

/// Maximum run_command timeout, whatever the settings say.
pub const MAX_COMMAND_TIMEOUT_S: u32 = 600;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(default, deny_unknown_fields)]
pub struct ConnectionSettings {
    /// Forbidden commands (AI), e.g. `rm`, `systemctl restart`.
    pub forbidden_commands: Vec<String>,
    /// Allowed commands (AI).
    pub allowed_commands: Vec<String>,
    /// Added to the built-in dangerous list.
    pub extra_dangerous_commands: Vec<String>,
    /// "Send file contents to the AI": read_file and search_files need it.
    pub send_file_contents: bool,
    pub file_limit_kb: u32,
    pub command_timeout_s: u32,
    pub output_limit_kb: u32,
    pub output_limit_lines: u32,
    pub shell_integration: ShellIntegration,
    pub sensitivity: Sensitivity,
    /// Backups of files kaiport replaces or deletes on a server, all together, at most (KiB;
    /// the oldest go first). 0 keeps none.
    pub backup_total_kb: u32,
    /// Backups older than this many days are removed.
    pub backup_max_age_days: u32,
    /// A file larger than this (KiB) is changed without a backup, and the result says so.
    pub backup_file_limit_kb: u32,
}

/// Default of [`ConnectionSettings::backup_total_kb`]: 512 MiB.
pub const DEFAULT_BACKUP_TOTAL_KB: u32 = 512 * 1024;
/// Default of [`ConnectionSettings::backup_max_age_days`].
pub const DEFAULT_BACKUP_MAX_AGE_DAYS: u32 = 30;
/// Default of [`ConnectionSettings::backup_file_limit_kb`]: 64 MiB.
pub const DEFAULT_BACKUP_FILE_LIMIT_KB: u32 = 64 * 1024;

impl Default for ConnectionSettings {
    fn default() -> Self {
        ConnectionSettings {
            forbidden_commands: Vec::new(),
            allowed_commands: Vec::new(),
            extra_dangerous_commands: Vec::new(),
            send_file_contents: false,
            file_limit_kb: 64,
            command_timeout_s: 60,
            output_limit_kb: 16,
            output_limit_lines: 400,
            shell_integration: ShellIntegration::Inject,
            sensitivity: Sensitivity::Internal,
            backup_total_kb: DEFAULT_BACKUP_TOTAL_KB,
            backup_max_age_days: DEFAULT_BACKUP_MAX_AGE_DAYS,
            backup_file_limit_kb: DEFAULT_BACKUP_FILE_LIMIT_KB,
        }
    }
}

/// A `--setting NAME=VALUE` that could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError(pub String);

impl std::fmt::Display for SettingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SettingError {}

impl ConnectionSettings {
    /// The setting names, as accepted by [`ConnectionSettings::set`].
    pub const NAMES: [&'static str; 13] = [
        "forbidden_commands",
        "allowed_commands",
        "extra_dangerous_commands",
        "send_file_contents",
        "file_limit_kb",
        "command_timeout_s",
        "output_limit_kb",
        "output_limit_lines",
        "shell_integration",
        "sensitivity",
        "backup_total_kb",
        "backup_max_age_days",
        "backup_file_limit_kb",
    ];

    /// The allowed range of a numeric setting, `None` for the others.
    pub fn number_range(name: &str) -> Option<(u32, u32)> {
        match name {
            "file_limit_kb" => Some((1, 2048)),
            "command_timeout_s" => Some((1, MAX_COMMAND_TIMEOUT_S)),
            "output_limit_kb" => Some((1, 1024)),
            "output_limit_lines" => Some((10, 100_000)),
            "backup_total_kb" => Some((0, 100_000_000)),
            "backup_max_age_days" => Some((1, 3650)),
            "backup_file_limit_kb" => Some((0, 4 * 1024 * 1024)),
            _ => None,
        }
    }

    /// Checks what a front end sent: numbers in their ranges, no empty command pattern. The
    /// error names the setting and what it accepts.
    pub fn validate(&self) -> Result<(), SettingError> {
        for (name, value) in [
            ("file_limit_kb", self.file_limit_kb),
            ("command_timeout_s", self.command_timeout_s),
            ("output_limit_kb", self.output_limit_kb),
            ("output_limit_lines", self.output_limit_lines),
            ("backup_total_kb", self.backup_total_kb),
            ("backup_max_age_days", self.backup_max_age_days),
            ("backup_file_limit_kb", self.backup_file_limit_kb),
        ] {
            if let Some((min, max)) = Self::number_range(name)
                && !(min..=max).contains(&value)
            {
                return Err(SettingError(format!(
                    "{name} must be a whole number from {min} to {max}, not {value}"
                )));
            }
        }
        for (name, list) in [
            ("forbidden_commands", &self.forbidden_commands),
            ("allowed_commands", &self.allowed_commands),
            ("extra_dangerous_commands", &self.extra_dangerous_commands),
        ] {
            if list.iter().any(|pattern| pattern.trim().is_empty()) {
                return Err(SettingError(format!(
                    "{name} has an empty entry; remove it or write a command"
                )));
            }
        }
        Ok(())
    }

    /// Set one setting from its text form (lists are comma-separated).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SettingError> {
        fn list(value: &str) -> Vec<String> {
            value
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(str::to_owned)
                .collect()
        }
        fn number(name: &str, value: &str, min: u32, max: u32) -> Result<u32, SettingError> {
            match value.trim().parse::<u32>() {
                Ok(number) if (min..=max).contains(&number) => Ok(number),
                _ => Err(SettingError(format!(
                    "{name} must be a whole number from {min} to {max}, not {value:?}"
                ))),
            }
        }
        fn choice<T: for<'de> Deserialize<'de>>(
            name: &str,
            value: &str,
            choices: &str,
        ) -> Result<T, SettingError> {
            serde_json::from_value(serde_json::Value::String(value.trim().to_owned())).map_err(
                |_| SettingError(format!("{name} must be one of {choices}, not {value:?}")),
            )
        }
        match name {
            "forbidden_commands" => self.forbidden_commands = list(value),
            "allowed_commands" => self.allowed_commands = list(value),
            "extra_dangerous_commands" => self.extra_dangerous_commands = list(value),
            "send_file_contents" => {
                self.send_file_contents = match value.trim() {
                    "true" | "yes" | "on" | "1" => true,
                    "false" | "no" | "off" | "0" => false,
                    _ => {
                        return Err(SettingError(format!(
                            "send_file_contents must be true or false, not {value:?}"
                        )));
                    }
                }
            }
            "file_limit_kb"
            | "command_timeout_s"
            | "output_limit_kb"
            | "output_limit_lines"
            | "backup_total_kb"
            | "backup_max_age_days"
            | "backup_file_limit_kb" => {
                let (min, max) = Self::number_range(name).unwrap_or((0, u32::MAX));
                let number = number(name, value, min, max)?;
                match name {
                    "file_limit_kb" => self.file_limit_kb = number,
                    "command_timeout_s" => self.command_timeout_s = number,
                    "output_limit_kb" => self.output_limit_kb = number,
                    "backup_total_kb" => self.backup_total_kb = number,
                    "backup_max_age_days" => self.backup_max_age_days = number,
                    "backup_file_limit_kb" => self.backup_file_limit_kb = number,
                    _ => self.output_limit_lines = number,
                }
            }
            "shell_integration" => {
                self.shell_integration = choice(name, value, "inject, detect-only, off")?
            }
            "sensitivity" => {
                self.sensitivity =
                    choice(name, value, "public, internal, confidential, restricted")?
            }
            _ => {
                return Err(SettingError(format!(
                    "unknown setting {name:?}; known settings: {}",
                    ConnectionSettings::NAMES.join(", ")
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn set_parses_every_kind_of_value() {
        let mut settings = ConnectionSettings::default();
        settings
            .set("forbidden_commands", "rm, systemctl restart,,")
            .unwrap();
        settings.set("send_file_contents", "true").unwrap();
        settings.set("command_timeout_s", "5").unwrap();
        settings.set("shell_integration", "detect-only").unwrap();
        settings.set("sensitivity", "restricted").unwrap();
        assert_eq!(
            settings.forbidden_commands,
            vec!["rm".to_owned(), "systemctl restart".to_owned()]
        );
        assert!(settings.send_file_contents);
        assert_eq!(settings.command_timeout_s, 5);
        assert_eq!(settings.shell_integration, ShellIntegration::DetectOnly);
        assert_eq!(settings.sensitivity, Sensitivity::Restricted);
    }

    #[test]
    fn set_rejects_bad_values_with_the_reason() {
        let mut settings = ConnectionSettings::default();
        assert_eq!(
            settings.set("command_timeout_s", "601").unwrap_err().0,
            "command_timeout_s must be a whole number from 1 to 600, not \"601\""
        );
        assert!(
            settings
                .set("colour", "red")
                .unwrap_err()
                .0
                .starts_with("unknown setting \"colour\"")
        );
        assert!(settings.set("shell_integration", "maybe").is_err());
    }

    #[test]
    fn validate_names_the_setting_out_of_range() {
        assert_eq!(ConnectionSettings::default().validate(), Ok(()));
        let settings = ConnectionSettings {
            output_limit_lines: 5,
            ..ConnectionSettings::default()
        };
        assert_eq!(
            settings.validate().unwrap_err().0,
            "output_limit_lines must be a whole number from 10 to 100000, not 5"
        );
        let settings = ConnectionSettings {
            forbidden_commands: vec!["rm".into(), " ".into()],
            ..ConnectionSettings::default()
        };
        assert!(
            settings
                .validate()
                .unwrap_err()
                .0
                .starts_with("forbidden_commands")
        );
    }
}
