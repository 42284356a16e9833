//! The static description of one program family member: its names, the spec text
//! ([`super::model`]) and the code for what the text cannot say (a `git -c` setting that names a
//! program, `chmod` of `/`, a `DROP DATABASE` in `mysql -e`).
//!
//! A hook only adds to the verdict the generic reading made; it must never remove a reason to
//! ask.

use super::args::Call;
use super::verdict::Verdict;

/// Code that judges what the text cannot (see the module docs).
pub type Hook = fn(&Call<'_>, &mut Verdict);

/// One spec (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The command names it describes (`tar`, `gtar`).
    pub names: &'static [&'static str],
    /// The family (its file under `policy/programs/`), shown in explanations.
    pub family: &'static str,
    pub text: &'static str,
    pub hook: Option<Hook>,
}
