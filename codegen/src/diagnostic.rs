//! Errors about a spec file: each names the file, line and column, what is wrong and how
//! to fix it.

use std::fmt;

/// One problem in a spec file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The spec file, as the user should see it (`spec/v3.yaml`).
    pub file: String,
    /// 1-based line; 0 when the place is unknown.
    pub line: u32,
    /// 1-based column; 0 when the place is unknown.
    pub column: u32,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}\n  help: {}",
            self.file, self.line, self.column, self.message, self.help
        )
    }
}

/// Every problem found in one run, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}
