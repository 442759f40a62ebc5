//! What a spec file declares for the tools besides the client: the rows `inspection
//! import` sends, the lists `inspection sync` copies, the documents `inspection export`
//! fetches, and the webhook deliveries a listener reads. Part of the serde model
//! (`model.rs`), split out by what it serves.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::ordered::OrderedMap;
use inspection_ir::Source;

/// The operations `inspection import` calls once per row of a CSV or JSON Lines file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportDef {
    /// What can be imported, for the tool's help and docs.
    pub doc: String,
    /// The targets, each a kind of row (`units`, `tasks`) named on the command line.
    #[schemars(with = "Vec<ImportTargetDef>")]
    pub targets: Spanned<Vec<ImportTargetDef>>,
}

/// One kind of row: the operation it calls, the columns that name it, and whether it is
/// safe to send again.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportTargetDef {
    /// The name on the command line (`units`), lower case, words joined by `_`.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// What a row does, for the tool's help.
    pub doc: String,
    /// The operation a row calls; it takes a JSON body.
    #[schemars(with = "String")]
    pub operation: Spanned<String>,
    /// The columns that name a row (no two rows of a file share them).
    #[schemars(with = "Vec<String>")]
    pub key: Spanned<Vec<String>>,
    /// Whether sending a row again is safe. PUT, PATCH and DELETE are; a POST only when
    /// the service finds before it creates (say so here, `true`). Default: by the method.
    #[serde(default)]
    #[schemars(with = "Option<bool>")]
    pub idempotent: Option<Spanned<bool>>,
    /// The body's field a row fills, for a body that wraps its record (`asset`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub row: Option<Spanned<String>>,
    /// For an operation that is not safe to send again: how a row whose answer never
    /// came is looked for before it is reported as of unknown outcome.
    #[serde(default)]
    pub find: Option<FindDef>,
}

/// The list that shows what a target created, from when the import began.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindDef {
    /// The paged list operation, with no required input.
    #[schemars(with = "String")]
    pub list: Spanned<String>,
    /// Its date-time "after" filter (`created_after`).
    #[schemars(with = "String")]
    pub since: Spanned<String>,
    /// Each column compared, with the records' field it is compared to
    /// (`reference_number: unit.reference_number`).
    #[serde(rename = "match")]
    #[schemars(with = "std::collections::BTreeMap<String, String>")]
    pub matches: OrderedMap<Spanned<String>>,
}

/// The lists `inspection sync` walks into the user's database, and how each stays current.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncDef {
    /// What the sync keeps, for the tool's help and docs.
    pub doc: String,
    /// The lists, each a table of its records (named by the list: `list_units` fills
    /// `units`), in the order a sync walks them.
    #[schemars(with = "Vec<SyncListDef>")]
    pub lists: Spanned<Vec<SyncListDef>>,
}

/// One list a sync walks: by a date filter from a watermark where the list takes one, or
/// whole every run (a record no longer listed is then marked deleted, never dropped).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncListDef {
    /// The paged list operation, with no required input.
    #[schemars(with = "String")]
    pub list: Spanned<String>,
    /// The list's "after" filter (`created_after`, `filter.created_at`), as the export's
    /// `since`; absent: the whole list every run.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub since: Option<Spanned<String>>,
    /// The records' date-time field the filter compares (`created_at`, `updated_at`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub watermark: Option<Spanned<String>>,
    /// What the filter sees: `new` records only (a change to an older one is read again
    /// only within the sync's lookback window), or `changed` ones too (the watermark is
    /// an update time). Required with `since`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub sees: Option<Spanned<String>>,
    /// The records' id field (default `id`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub id: Option<Spanned<String>>,
}

/// The bulk export of an interface: a paged list walked to its end, resumable, then
/// continued with only what is new.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportDef {
    /// What is exported, for the tool's help and docs (say what "after" means).
    pub doc: String,
    /// The paged list operation, with no required input.
    #[schemars(with = "String")]
    pub list: Spanned<String>,
    /// How the list is asked for records after a time: a date-time query parameter of
    /// `list` (`created_after`), or a field of a JSON-encoded one (`filter.created_at`).
    #[schemars(with = "String")]
    pub since: Spanned<String>,
    /// The records' date-time field `--since last` goes on from (`created_at`).
    #[schemars(with = "String")]
    pub watermark: Spanned<String>,
    /// The records' id field (default `id`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub id: Option<Spanned<String>>,
    /// The operation answering a record's document (its one path parameter the record's
    /// id, its answer bytes or a binary alternative such as a PDF), saved beside it.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub document: Option<Spanned<String>>,
    /// Where a record carries a pre-signed link to the same document, fetched instead of
    /// `document` while it lives (`document` stays the fallback, so it is required).
    #[serde(default)]
    pub document_link: Option<DocumentLinkDef>,
}

/// A record's field holding a pre-signed link to its document: fetched with no
/// credential, before its lifetime ends.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocumentLinkDef {
    /// What the link is and what is inferred about it, for the tool's docs.
    pub doc: String,
    /// The records' url field holding the link (`pdf_share_url`).
    #[schemars(with = "String")]
    pub field: Spanned<String>,
    /// How long a link lives from the answer that carried it: a whole number and a unit,
    /// `48 hours` (`seconds`, `minutes`, `hours`, `days`).
    #[schemars(with = "String")]
    pub lifetime: Spanned<String>,
    /// The credentials the link needs: `none` (a pre-signed link; the tool never sends
    /// the key off the base URL's origin).
    #[schemars(with = "String")]
    pub credentials: Spanned<String>,
}

/// What a webhook listener receives.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhooksDef {
    /// How deliveries work, for the generated docs.
    pub doc: String,
    /// The union a delivery's JSON body is read as (open: new event types are kept whole).
    #[schemars(with = "String")]
    pub event: Spanned<String>,
    /// Where the facts come from (the event names and envelope are usually inferred).
    #[serde(default)]
    pub source: Source,
}
