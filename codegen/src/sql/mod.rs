//! The SQL backend: the tables `inspection sync` fills, as the statements that create
//! them in SQLite and in PostgreSQL (`generated/sql/<interface>.<dialect>.sql`) and a
//! reference of each table and column (`generated/sql/<interface>.md`), for
//! interfaces that declare a `sync`. The model of the tables ([`tables`]) is shared with
//! `check` (names that would collide) and the command-line tool's backend (its row
//! mapper and the statements it runs).

pub mod ddl;
pub mod names;
mod reference;
pub mod tables;

use crate::ir::Api;
use crate::output::OutputFile;

const DIR: &str = "generated/sql";

/// The statements of each interface with a sync, one file per dialect.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    let mut out = Vec::new();
    for i in api.interfaces.iter().filter(|i| i.sync.is_some()) {
        let tables = tables::tables(i).map_err(|c| c.message)?;
        for dialect in ddl::Dialect::ALL {
            let header = crate::templates::header("--", &i.source_file);
            out.push(OutputFile::new(
                format!("{DIR}/{}.{}.sql", i.name, dialect.name()),
                format!("{header}\n{}", ddl::create(dialect, &tables)),
            ));
        }
        out.push(OutputFile::new(
            format!("{DIR}/{}.md", i.name),
            reference::markdown(i, &tables),
        ));
    }
    Ok(out)
}

/// Interface names SQL has no trouble with (tables are not prefixed by them).
pub fn reserved_module(_name: &str) -> bool {
    false
}
