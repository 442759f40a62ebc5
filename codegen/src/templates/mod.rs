//! The minijinja environment the template backends render with: templates are embedded in
//! the generator binary (output never depends on the working directory), and a handful of
//! filters do what layout needs (doc comments, indentation). Names and types are computed
//! in Rust before a template sees them.

use std::borrow::Cow;

use minijinja::Environment;

use crate::output::OutputFile;

mod contexts;
pub use contexts::*;

/// What a package-level template sees (manifests, the root module): the release version,
/// the interfaces, and the generated-file header.
#[derive(serde::Serialize)]
pub struct PackageCx {
    pub version: String,
    /// Every language's package names (`spec/packages.yaml`).
    pub packages: crate::ir::Packages,
    pub interfaces: Vec<PackageInterface>,
    /// Whether an interface declares a sync (a package may then offer what loads it, as
    /// Python's dlt sources).
    pub sync: bool,
    pub header: String,
}

#[derive(serde::Serialize)]
pub struct PackageInterface {
    pub name: String,
    pub title: String,
}

/// The package context of `api`, under a header in `comment` syntax.
pub fn package(api: &crate::ir::Api, comment: &str) -> PackageCx {
    PackageCx {
        version: api.version.clone(),
        packages: api.packages.clone(),
        interfaces: api
            .interfaces
            .iter()
            .map(|i| PackageInterface {
                name: i.name.clone(),
                title: i.title.clone(),
            })
            .collect(),
        sync: api.interfaces.iter().any(|i| i.sync.is_some()),
        header: header(comment, "spec/"),
    }
}

/// Where a template backend's package puts what. Every backend writes its package the same
/// way (fixed files from templates, the runtime copied, a module folder per interface), so
/// a new language states only its paths, templates and contexts.
pub struct Layout {
    /// The package folder (`generated/python`).
    pub dir: &'static str,
    /// The language's folder under `templates/`, which copied runtime files name.
    pub language: &'static str,
    /// How a line comment starts (`#`, `//`).
    pub comment: &'static str,
    /// Package-level files, rendered with [`PackageCx`]: (path in the package, template).
    pub package_files: &'static [(&'static str, &'static str)],
    /// The folder (in the package) the runtime is copied to.
    pub runtime_dir: &'static str,
    /// The folder (in the package) holding a module folder per interface; empty for the
    /// package's root.
    pub interfaces_dir: &'static str,
    /// What `{package}` in the paths above stands for: the package's folder, from the
    /// package settings (`inspection_client`, `dev/inspection/client`).
    pub package_dir: fn(&crate::ir::Packages) -> String,
    /// An interface module's files: (file name, template).
    pub interface_files: &'static [(&'static str, &'static str)],
    /// The hand-written runtime the package carries: every file of
    /// `templates/<language>/runtime/` ([`runtime!`]).
    pub runtime: &'static [Embedded],
}

/// A runtime file as the package gets it: its path under the runtime folder, its text.
pub type RuntimeFile = (Cow<'static, str>, Cow<'static, str>);

impl Layout {
    /// The runtime's files copied as they are.
    pub fn runtime_as_is(&self) -> Vec<RuntimeFile> {
        (self.runtime.iter())
            .map(|&(name, text)| (name.into(), text.into()))
            .collect()
    }

    /// The folder (from the checkout's root) of interface `i`'s module: where
    /// `interface_files` go, and any file of its own a backend adds beside them.
    pub fn interface_dir(&self, api: &crate::ir::Api, i: &crate::ir::Interface) -> String {
        let dir = self
            .interfaces_dir
            .replace("{package}", &(self.package_dir)(&api.packages));
        if dir.is_empty() {
            format!("{}/{}", self.dir, i.name)
        } else {
            format!("{}/{dir}/{}", self.dir, i.name)
        }
    }

    /// The package's files: `runtime` as (file name, text; borrowed where copied as is) under the generated-file
    /// header, and each interface's module rendered from the context `interface` computes,
    /// passed through `finish` (a language's whitespace rules).
    pub fn write<C: serde::Serialize>(
        &self,
        api: &crate::ir::Api,
        env: &Environment<'static>,
        runtime: &[(Cow<str>, Cow<str>)],
        interface: impl Fn(&crate::ir::Interface) -> Result<C, String>,
        finish: fn(String) -> String,
    ) -> Result<Vec<OutputFile>, String> {
        let package = package(api, self.comment);
        let package_dir = (self.package_dir)(&api.packages);
        let mut files = Vec::new();
        let mut out = |path: String, contents: String| {
            let path = path.replace("{package}", &package_dir);
            files.push(OutputFile::new(format!("{}/{path}", self.dir), contents));
        };
        for (path, template) in self.package_files {
            out(path.to_string(), render(env, template, &package)?);
        }
        for (name, text) in runtime {
            out(
                format!("{}/{name}", self.runtime_dir),
                runtime_file(self.comment, self.language, text),
            );
        }
        for i in &api.interfaces {
            // Made into the engine's value once, not once per file: the conversion (and
            // dropping its result) cost more than rendering the templates themselves.
            let cx = minijinja::Value::from_serialize(interface(i)?);
            let dir = self.interface_dir(api, i);
            for (file, template) in self.interface_files {
                let contents = finish(render(env, template, &cx)?);
                files.push(OutputFile::new(format!("{dir}/{file}"), contents));
            }
        }
        Ok(files)
    }
}

/// The generated-file header, one `comment` line per sentence.
pub fn header(comment: &str, source: &str) -> String {
    format!(
        "{comment} @generated by `cargo xtask codegen` from {source}.\n\
         {comment} Do not edit: change the spec, the templates or the generator, then regenerate.\n"
    )
}

/// A hand-written runtime file of `templates/<language>/runtime/`, as copied into the
/// package: under the generated-file header in the language's `comment`.
pub fn runtime_file(comment: &str, language: &str, text: &str) -> String {
    format!(
        "{comment} @generated by `cargo xtask codegen` from templates/{language}/runtime/.\n\
         {comment} Do not edit: change the template, then regenerate.\n\n{text}"
    )
}

/// A double-quoted string literal of `text` that Python and TypeScript both read back as
/// `text`: JSON's escapes are valid in either, for every character JSON escapes.
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

/// A template embedded in the binary: its name and its text.
pub type Embedded = (&'static str, &'static str);

/// Embeds files of `templates/<folder>/` in the generator as [`Embedded`] pairs, each under
/// its file name, or under the name before `=` (`"record" = "record.py.jinja"`).
macro_rules! embed {
    ($folder:literal: $($name:literal $(= $file:literal)?),* $(,)?) => {
        &[$($crate::templates::embed!(@one $folder, $name $(, $file)?)),*]
    };
    (@one $folder:literal, $name:literal) => {
        $crate::templates::embed!(@one $folder, $name, $name)
    };
    (@one $folder:literal, $name:literal, $file:literal) => {
        (
            $name,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../templates/",
                $folder,
                "/",
                $file
            )),
        )
    };
}
pub(crate) use embed;

/// Every file of a language's runtime folder, embedded by the build script
/// (`codegen/build.rs`) as [`Embedded`] pairs in name order.
macro_rules! runtime {
    ($language:literal) => {
        include!(concat!(env!("OUT_DIR"), "/runtime_", $language, ".rs"))
    };
}
pub(crate) use runtime;

/// An environment holding `templates`, with the shared filters.
pub fn environment(templates: &[Embedded]) -> Result<Environment<'static>, String> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_filter("jsdoc", jsdoc);
    env.add_filter("pydoc", pydoc);
    env.add_filter("javadoc", javadoc);
    env.add_filter("godoc", godoc);
    env.add_filter("tabs", tabs);
    for (name, text) in templates {
        env.add_template(name, text)
            .map_err(|e| format!("template {name}: {e}"))?;
    }
    Ok(env)
}

/// Renders `name` with `context`.
pub fn render(
    env: &Environment<'static>,
    name: &str,
    context: impl serde::Serialize,
) -> Result<String, String> {
    env.get_template(name)
        .and_then(|t| t.render(context))
        .map_err(|e| format!("template {name}: {e:#}"))
}

/// Where a doc comment's prose wraps, so that no generated line runs on (with the comment's
/// own indentation, lines stay within about 100 columns).
const DOC_WIDTH: usize = 88;

/// A `/** ... */` doc comment (JSDoc / TSDoc) of `text`, indented by `indent` spaces; empty
/// text gives nothing. `*/` inside the text is broken up so it cannot end the comment.
fn jsdoc(text: String, indent: usize) -> String {
    let text = crate::doc_text::wrap(text.trim(), DOC_WIDTH).replace("*/", "*\\/");
    star_comment(text.lines().map(str::to_string).collect(), indent)
}

/// A `/** ... */` comment of `lines` (already wrapped and made safe), indented by `indent`
/// spaces: one line stays on one line; none gives nothing.
fn star_comment(lines: Vec<String>, indent: usize) -> String {
    let pad = " ".repeat(indent);
    match lines.as_slice() {
        [] => String::new(),
        [line] => format!("{pad}/** {} */\n", line.trim_end()),
        _ => {
            let mut out = format!("{pad}/**\n");
            for line in &lines {
                let line = line.trim_end();
                if line.is_empty() {
                    out.push_str(&format!("{pad} *\n"));
                } else {
                    out.push_str(&format!("{pad} * {line}\n"));
                }
            }
            out.push_str(&format!("{pad} */\n"));
            out
        }
    }
}

/// A Javadoc comment of `text`: a `/** ... */` comment whose text is HTML (`&`, `<`, `>`
/// escaped, so doclint finds no malformed tag), where a line cannot start a block tag
/// (`@`) and a backslash cannot begin a Unicode escape (which Java reads before comments).
///
/// `tags` (`@param`, `@return` lines, written by the template) follow the text as given.
fn javadoc(text: String, indent: usize, tags: Option<Vec<String>>) -> String {
    let text = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('@', "&#64;")
        .replace('\\', "&#92;");
    let text = crate::doc_text::wrap(text.trim(), DOC_WIDTH).replace("*/", "*&#47;");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let tags = tags.unwrap_or_default();
    if !tags.is_empty() && !lines.is_empty() {
        lines.push(String::new());
    }
    lines.extend(tags);
    star_comment(lines, indent)
}

/// `text` with every line (the first too) `n` tabs further in; empty lines stay empty.
fn tabs(text: String, n: usize) -> String {
    let pad = "\t".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Go doc comment of `text`: `//` lines indented by `indent` tabs, a paragraph break as
/// a bare `//`; empty text gives nothing.
fn godoc(text: String, indent: usize) -> String {
    let text = crate::doc_text::wrap(text.trim(), DOC_WIDTH);
    let pad = "\t".repeat(indent);
    // gofmt writes a list item as `//   - text`, its wrapped lines under the text.
    let mut in_item = false;
    text.lines()
        .map(|line| {
            let line = line.trim_end();
            let item = line.strip_prefix("- ").or_else(|| line.strip_prefix("* "));
            let text = match item {
                Some(rest) => {
                    in_item = true;
                    format!("  - {rest}")
                }
                None if in_item && line.starts_with("  ") => format!("    {}", line.trim_start()),
                None => {
                    in_item = false;
                    line.to_string()
                }
            };
            if text.is_empty() {
                format!("{pad}//\n")
            } else {
                format!("{pad}// {text}\n")
            }
        })
        .collect()
}

/// A Python docstring of `text` (`"""..."""`), indented by `indent` spaces, ending in a
/// newline; empty text gives nothing. Backslashes and quotes that could end it early are
/// escaped.
fn pydoc(text: String, indent: usize) -> String {
    let text = crate::doc_text::wrap(text.trim(), DOC_WIDTH)
        .replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"");
    if text.is_empty() {
        return String::new();
    }
    let pad = " ".repeat(indent);
    let text = if text.ends_with('"') {
        format!("{text} ")
    } else {
        text
    };
    let lines: Vec<&str> = text.lines().collect();
    if let [line] = lines.as_slice() {
        return format!("{pad}\"\"\"{line}\"\"\"\n");
    }
    let mut out = format!("{pad}\"\"\"");
    for (n, line) in lines.iter().enumerate() {
        let line = line.trim_end();
        if n > 0 && !line.is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("{pad}\"\"\"\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_comments_cannot_be_closed_early() {
        assert_eq!(jsdoc("One line.".into(), 2), "  /** One line. */\n");
        assert_eq!(
            jsdoc("A */ B\n\nC".into(), 0),
            "/**\n * A *\\/ B\n *\n * C\n */\n"
        );
        assert_eq!(jsdoc("  ".into(), 0), "");
    }

    #[test]
    fn javadoc_text_is_html_without_tags_or_escapes() {
        assert_eq!(
            javadoc("a < b & @see \\u0041".into(), 0, None),
            "/** a &lt; b &amp; &#64;see &#92;u0041 */\n"
        );
        assert_eq!(
            javadoc("One.".into(), 2, Some(vec!["@return it".into()])),
            "  /**\n   * One.\n   *\n   * @return it\n   */\n"
        );
        assert_eq!(
            javadoc("a */ b".into(), 0, Some(vec![])),
            "/** a *&#47; b */\n"
        );
    }

    #[test]
    fn docstrings_cannot_be_closed_early() {
        assert_eq!(pydoc("One line.".into(), 4), "    \"\"\"One line.\"\"\"\n");
        assert_eq!(
            pydoc("A \"\"\" B\\n\n\nC".into(), 0),
            "\"\"\"A \\\"\\\"\\\" B\\\\n\n\nC\n\"\"\"\n"
        );
        assert_eq!(
            pydoc("ends with \"x\"".into(), 0),
            "\"\"\"ends with \"x\" \"\"\"\n"
        );
        assert_eq!(pydoc(" ".into(), 0), "");
    }
}
