//! `--documents DIR`: each record's document (the inspection's PDF) saved as the export
//! saves it, into `DIR/documents/` (whole files, from the record's pre-signed link or the
//! API, kept when already there), before the page that lists the record commits; the
//! file's path goes into the record's `_document` in the same transaction.

use std::path::{Path, PathBuf};
use std::time::Instant;

use inspection_runtime::Pacer;
use serde_json::Value;

use crate::exit::Failure;
use crate::export::Source as ExportSource;
use crate::export::documents::{LinkOptions, Saver, Wanted};
use crate::export::folder::{self, Folder};
use crate::export::progress::Progress;

/// Where a run saves documents, held for the run.
pub struct Documents<'a> {
    source: &'a dyn ExportSource,
    folder: Folder,
    /// Absolute, for the paths the rows keep.
    dir: PathBuf,
    links: LinkOptions,
    pacer: Pacer,
    /// 429 answers met from the links' host.
    pub link_rate_limited: u64,
}

impl<'a> Documents<'a> {
    /// Takes `dir` (made if missing, locked for the run, partial files of a killed run
    /// removed).
    pub fn open(
        dir: &Path,
        source: &'a dyn ExportSource,
        links: LinkOptions,
    ) -> Result<Documents<'a>, Failure> {
        let folder = Folder::lock(dir)?;
        folder.remove_partial()?;
        let documents = folder.file(folder::DOCUMENTS);
        std::fs::create_dir_all(&documents).map_err(|e| Failure::io("create", &documents, e))?;
        let dir =
            std::fs::canonicalize(&documents).map_err(|e| Failure::io("find", &documents, e))?;
        let pacer = Pacer::new(links.rate);
        Ok(Documents {
            source,
            folder,
            dir,
            links,
            pacer,
            link_rate_limited: 0,
        })
    }

    /// Saves the documents of `records` (each with its id) and gives each one's path.
    pub async fn save(
        &mut self,
        records: &[(&str, &Value)],
        received: Instant,
        progress: &mut Progress,
    ) -> Result<Vec<(String, String)>, Failure> {
        let about = self.source.about();
        let extension = about.document_extension.unwrap_or("bin");
        let wanted: Vec<Wanted> = records
            .iter()
            .map(|(id, value)| Wanted::of(id.to_string(), value, about.document_link.as_ref()))
            .collect();
        let saver = Saver {
            source: self.source,
            folder: &self.folder,
            options: &self.links,
            pacer: &self.pacer,
            link_rate_limited: Default::default(),
        };
        let saved = saver.page(wanted, received, progress).await;
        self.link_rate_limited += saver.link_rate_limited.into_inner();
        saved?;
        Ok(records
            .iter()
            .map(|(id, _)| {
                let path = self.dir.join(folder::document_name(id, extension));
                (id.to_string(), path.display().to_string())
            })
            .collect())
    }
}
