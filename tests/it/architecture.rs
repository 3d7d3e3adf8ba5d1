//! The code's shape, held by a test rather than by prose: what may import
//! what (docs/architecture.md), and no import circle between files.
//!
//! Every file under `src/` is read as Rust (syn): each path in it, in `use`
//! trees, expressions, types, attributes and macro bodies alike, is
//! resolved to the file that defines what it names. Naming a module (`use
//! crate::db;`) is not an import of its file; using an item of it is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// Crates that do I/O or speak HTTP or SQL: none of them belongs in `domain`.
const IO_CRATES: &[&str] = &[
    "tokio",
    "tokio_postgres",
    "deadpool_postgres",
    "postgres_types",
    "refinery",
    "axum",
    "http",
    "hyper",
    "hyper_util",
    "tower",
    "tower_http",
    "tower_sessions",
    "askama",
    "reqwest",
    "lettre",
];

/// Crates that speak HTTP or render pages: none of them belongs in `db`.
const HTTP_CRATES: &[&str] = &[
    "axum",
    "http",
    "hyper",
    "hyper_util",
    "tower",
    "tower_http",
    "askama",
    "reqwest",
    "lettre",
];

/// The crate's modules, by path (`web::buyer::event`; the root is ""),
/// each with its file.
pub fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("reading src/") {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    files
        .into_iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            match parts.last().map(String::as_str) {
                // main.rs is the binary, another crate: it imports `seatmap::…`.
                Some("main") if parts.len() == 1 => return None,
                Some("lib") if parts.len() == 1 => parts.clear(),
                Some("mod") => {
                    parts.pop();
                }
                _ => {}
            }
            Some((parts.join("::"), file))
        })
        .collect()
}

/// What one file refers to: the crate's own paths, made absolute, and the
/// external crates it names.
#[derive(Default)]
struct References {
    /// Absolute paths into this crate (segments after `crate`).
    internal: BTreeSet<Vec<String>>,
    external: BTreeSet<String>,
}

struct Reader<'a> {
    /// The module being read: the file's path plus any inline `mod`s.
    module: Vec<String>,
    modules: &'a BTreeMap<String, PathBuf>,
    /// Names brought in by this file's `use` items, to their absolute paths.
    aliases: &'a BTreeMap<String, Vec<String>>,
    found: References,
}

fn segments_of(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

impl Reader<'_> {
    /// Resolves a path as written in the current module: `Some(absolute)`
    /// when it names something of this crate.
    fn resolve(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        match first.as_str() {
            "crate" => Some(segments[1..].to_vec()),
            "self" | "super" => {
                let mut base = self.module.clone();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                if rest.first().is_some_and(|s| s == "self") {
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            _ => {
                let mut child = self.module.clone();
                child.push(first.clone());
                if self.modules.contains_key(&child.join("::")) {
                    child.extend(segments[1..].iter().cloned());
                    return Some(child);
                }
                let mut aliased = self.aliases.get(first)?.clone();
                aliased.extend(segments[1..].iter().cloned());
                Some(aliased)
            }
        }
    }

    fn record(&mut self, segments: Vec<String>) {
        if segments.is_empty() {
            return;
        }
        match self.resolve(&segments) {
            Some(absolute) => {
                self.found.internal.insert(absolute);
            }
            None => {
                self.found.external.insert(segments[0].clone());
            }
        }
    }

    /// Paths inside token streams syn leaves unparsed (macro bodies,
    /// attribute arguments): `a::b::c` runs starting at `crate`, `self`,
    /// `super` or a crate name.
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(group) => {
                    self.scan_tokens(group.stream());
                    i += 1;
                }
                TokenTree::Ident(ident) => {
                    let mut path = vec![ident.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    if path.len() > 1 {
                        self.record(path);
                    }
                    i = j;
                }
                TokenTree::Literal(literal) => {
                    // Paths in strings: `#[serde(with = "crate::web::json_int")]`.
                    let text = literal.to_string();
                    let inner = text.trim_matches('"');
                    if text.starts_with('"')
                        && ["crate::", "super::", "self::"]
                            .iter()
                            .any(|prefix| inner.starts_with(prefix))
                    {
                        let mut path: Vec<String> = inner.split("::").map(String::from).collect();
                        path.push("*".to_string());
                        self.record(path);
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }
}

/// Every path a `use` tree names, with its local name (None for globs).
fn use_paths(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let mut full = prefix.clone();
            let local = name.ident.to_string();
            if local != "self" {
                full.push(local.clone());
            }
            let local = if local == "self" {
                prefix.last().cloned()
            } else {
                Some(local)
            };
            out.push((full, local));
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            if rename.ident != "self" {
                full.push(rename.ident.to_string());
            }
            out.push((full, Some(rename.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_paths(tree, prefix, out);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            self.module.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&item.tree, &mut Vec::new(), &mut paths);
        for (mut path, local) in paths {
            if local.is_none() {
                // A glob takes the module's items: an import of its file.
                path.push("*".to_string());
            }
            self.record(path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 || path.leading_colon.is_some() {
            self.record(segments_of(path));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.scan_tokens(mac.tokens.clone());
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if let syn::Meta::List(list) = &attr.meta {
            self.scan_tokens(list.tokens.clone());
        }
        syn::visit::visit_attribute(self, attr);
    }
}

/// The file-level import graph: module → modules whose items it uses; and
/// each module's external crates.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
    external: BTreeMap<String, BTreeSet<String>>,
}

/// The module (file) that defines what `absolute` names: its longest
/// prefix that is a file. None when the path only names a module.
fn defining_module(absolute: &[String], modules: &BTreeMap<String, PathBuf>) -> Option<String> {
    // "module::*": the module's items are taken (a glob, or a module named
    // in a string, as serde's `with` does); an item's path ends as usual.
    let absolute = match absolute.split_last() {
        Some((last, module)) if last == "*" => {
            if modules.contains_key(&module.join("::")) {
                return Some(module.join("::"));
            }
            module
        }
        _ => absolute,
    };
    if modules.contains_key(&absolute.join("::")) {
        return None;
    }
    (0..absolute.len())
        .rev()
        .map(|n| absolute[..n].join("::"))
        .find(|prefix| modules.contains_key(prefix))
}

fn graph_of(src: &Path) -> Graph {
    let modules = modules(src);
    let mut edges = BTreeMap::new();
    let mut external = BTreeMap::new();
    for (name, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|err| panic!("{}: {err}", file.display()));
        let module: Vec<String> = if name.is_empty() {
            Vec::new()
        } else {
            name.split("::").map(String::from).collect()
        };
        // First the file's `use` names, so later paths can go through them.
        let mut aliases = BTreeMap::new();
        let no_aliases = BTreeMap::new();
        let naming = Reader {
            module: module.clone(),
            modules: &modules,
            aliases: &no_aliases,
            found: References::default(),
        };
        // Every `use` in the file, those inside functions included (scope
        // is ignored: a name is taken to mean what any `use` made it).
        struct Uses(Vec<syn::ItemUse>);
        impl<'ast> Visit<'ast> for Uses {
            fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
                self.0.push(item.clone());
            }
        }
        let mut uses = Uses(Vec::new());
        uses.visit_file(&ast);
        for item in &uses.0 {
            let mut paths = Vec::new();
            use_paths(&item.tree, &mut Vec::new(), &mut paths);
            for (path, local) in paths {
                if let (Some(absolute), Some(local)) = (naming.resolve(&path), local) {
                    aliases.insert(local, absolute);
                }
            }
        }
        let mut reader = Reader {
            module,
            modules: &modules,
            aliases: &aliases,
            found: References::default(),
        };
        reader.visit_file(&ast);
        let targets: BTreeSet<String> = reader
            .found
            .internal
            .iter()
            .filter_map(|absolute| defining_module(absolute, &modules))
            .filter(|target| target != name)
            .collect();
        edges.insert(name.clone(), targets);
        external.insert(name.clone(), reader.found.external);
    }
    Graph { edges, external }
}

/// The graph's strongly connected components of more than one file: its
/// import circles (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                loop {
                    let member = self.stack.pop().unwrap();
                    self.on_stack.remove(member);
                    component.push(shown(member));
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !tarjan.index.contains_key(node.as_str()) {
            tarjan.visit(node);
        }
    }
    tarjan.found
}

fn shown(module: &str) -> String {
    if module.is_empty() {
        "lib".into()
    } else {
        module.into()
    }
}

fn is_in(module: &str, area: &str) -> bool {
    module == area || module.starts_with(&format!("{area}::"))
}

/// Each import that breaks a layer rule, as "from → to: rule".
fn layer_breaches(graph: &Graph) -> Vec<String> {
    let mut breaches = Vec::new();
    for (from, targets) in &graph.edges {
        for to in targets {
            let rule = if is_in(from, "domain") && !is_in(to, "domain") {
                Some("domain imports only domain")
            } else if is_in(from, "db") && (is_in(to, "web") || to == "mail" || to == "webhooks") {
                Some("db does not import web, mail or webhooks")
            } else if (to == "app" && from != "startup") || to == "startup" {
                Some("nothing imports upward into app or startup")
            } else if is_in(to, "web") && !is_in(from, "web") && from != "app" && from != "startup"
            {
                Some("only web (and app and startup, which serve it) imports web")
            } else {
                None
            };
            if let Some(rule) = rule {
                breaches.push(format!("{} → {}: {rule}", shown(from), shown(to)));
            }
        }
    }
    for (module, crates) in &graph.external {
        if is_in(module, "domain") {
            for name in crates.iter().filter(|c| IO_CRATES.contains(&c.as_str())) {
                breaches.push(format!(
                    "{module} → {name}: domain uses no I/O, HTTP or SQL crate"
                ));
            }
        }
        if is_in(module, "db") {
            for name in crates.iter().filter(|c| HTTP_CRATES.contains(&c.as_str())) {
                breaches.push(format!("{module} → {name}: db uses no HTTP crate"));
            }
        }
    }
    breaches
}

pub fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_layer_is_crossed() {
    let breaches = layer_breaches(&graph_of(&src()));
    assert!(
        breaches.is_empty(),
        "{} imports cross a layer (docs/architecture.md):\n{}",
        breaches.len(),
        breaches.join("\n")
    );
}

#[test]
fn no_import_circle_between_files() {
    let found = circles(&graph_of(&src()).edges);
    let shown: Vec<String> = found.iter().map(|c| c.join(" ↔ ")).collect();
    assert!(
        found.is_empty(),
        "{} import circles between files:\n{}",
        found.len(),
        shown.join("\n")
    );
}

/// The reader itself: a planted upward import and a planted circle are
/// found, so a green run above means something.
#[test]
fn the_reader_finds_a_planted_upward_import_and_a_planted_circle() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod app; pub mod db; pub mod domain; pub mod web; pub mod words;",
    );
    write("app.rs", "pub const NAME: &str = \"x\";");
    write("db/mod.rs", "pub mod seats;");
    // db → web through a glob, and an HTTP crate in db.
    write(
        "db/seats.rs",
        "use crate::web::*; fn f() -> axum::Router { todo!() }",
    );
    // Not web, importing web inside a function, through a module's name.
    write(
        "words.rs",
        "fn f() { use crate::web::shown; let _ = shown::TEXT; }",
    );
    // domain → a module outside domain (in a serde string), and an I/O crate.
    write(
        "domain/c.rs",
        "#[serde(with = \"crate::words\")] struct C; fn g() { tokio::spawn(async {}); }",
    );
    write("domain/mod.rs", "pub mod a; pub mod b; pub mod c;");
    write("domain/a.rs", "use super::b::B; pub struct A(pub B);");
    write(
        "domain/b.rs",
        "pub struct B; pub fn make() -> super::a::A { super::a::A(B) }",
    );
    write(
        "web/mod.rs",
        "pub mod shown; use crate::domain; pub fn name() -> &'static str { tracing::info!(\"{}\", crate::app::NAME); domain::b::make(); \"\" }",
    );
    write("web/shown.rs", "pub const TEXT: &str = \"x\";");
    let graph = graph_of(dir.path());
    assert_eq!(
        circles(&graph.edges),
        [vec!["domain::a".to_string(), "domain::b".to_string()]]
    );
    let mut breaches = layer_breaches(&graph);
    breaches.sort();
    assert_eq!(
        breaches,
        [
            "db::seats → axum: db uses no HTTP crate",
            "db::seats → web: db does not import web, mail or webhooks",
            "domain::c → tokio: domain uses no I/O, HTTP or SQL crate",
            "domain::c → words: domain imports only domain",
            "web → app: nothing imports upward into app or startup",
            "words → web::shown: only web (and app and startup, which serve it) imports web",
        ]
    );
    assert!(
        graph.edges["web"].contains("domain::b"),
        "{:?}",
        graph.edges["web"]
    );
}

/// Every `.route("/api/…")` in the sources: API routes are made only by
/// `routes!` from their `#[utoipa::path]`, so none can exist undocumented.
fn hand_made_api_routes(src: &Path) -> Vec<String> {
    struct Routes {
        file: String,
        found: Vec<String>,
    }
    impl<'ast> Visit<'ast> for Routes {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if ["route", "route_service", "nest", "nest_service"]
                .iter()
                .any(|method| call.method == method)
                && let Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(path),
                    ..
                })) = call.args.first()
                && (path.value() == "/api" || path.value().starts_with("/api/"))
                && !["/api/openapi.json", "/api/docs"].contains(&path.value().as_str())
            {
                self.found.push(format!("{}: {}", self.file, path.value()));
            }
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    let mut routes = Routes {
        file: String::new(),
        found: Vec::new(),
    };
    for file in modules(src).values() {
        routes.file = file.display().to_string();
        let ast = syn::parse_file(&std::fs::read_to_string(file).unwrap()).unwrap();
        routes.visit_file(&ast);
    }
    routes.found
}

#[test]
fn api_routes_are_made_only_from_their_documentation() {
    let found = hand_made_api_routes(&src());
    assert!(
        found.is_empty(),
        "API routes made by hand (use routes!(handler) in the area's routes()):\n{}",
        found.join("\n")
    );
}

/// The reader of routes itself finds a planted hand-made API route.
#[test]
fn a_planted_hand_made_api_route_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lib.rs"),
        "fn router() -> Router { Router::new().route(\"/api/secret\", get(h)).nest(\"/api\", api()).route(\"/page\", get(h)) }",
    )
    .unwrap();
    assert_eq!(hand_made_api_routes(dir.path()).len(), 2);
}

/// Every `#[utoipa::path(method, path = "…")]` in the sources, as
/// (method, path).
fn annotated_operations(src: &Path) -> BTreeSet<(String, String)> {
    struct Annotated(BTreeSet<(String, String)>);
    impl<'ast> Visit<'ast> for Annotated {
        fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
            let is_path = attr
                .path()
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                == ["utoipa", "path"];
            if let (true, syn::Meta::List(list)) = (is_path, &attr.meta) {
                let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
                let method = tokens.first().map(|t| t.to_string()).unwrap_or_default();
                let path = tokens.windows(3).find_map(|w| match w {
                    [
                        TokenTree::Ident(key),
                        TokenTree::Punct(eq),
                        TokenTree::Literal(value),
                    ] if key == "path" && eq.as_char() == '=' => {
                        Some(value.to_string().trim_matches('"').to_string())
                    }
                    _ => None,
                });
                self.0
                    .insert((method, path.expect("a utoipa::path names its path")));
            }
        }
    }
    let mut annotated = Annotated(BTreeSet::new());
    for file in modules(src).values() {
        let ast = syn::parse_file(&std::fs::read_to_string(file).unwrap()).unwrap();
        annotated.visit_file(&ast);
    }
    annotated.0
}

/// Routes and document come from one list, so a handler annotated but
/// left out of every area's `routes()` would be in neither: each
/// annotation in the sources must be an operation of the document.
#[test]
fn every_annotated_handler_is_in_the_document() {
    let annotated = annotated_operations(&src());
    let document = seatmap::web::openapi::document_json();
    let documented: BTreeSet<(String, String)> = document["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(move |method| (method.clone(), path.clone()))
        })
        .collect();
    assert!(!annotated.is_empty());
    let left_out: Vec<_> = annotated.difference(&documented).collect();
    let unannotated: Vec<_> = documented.difference(&annotated).collect();
    assert!(
        left_out.is_empty(),
        "annotated but not routed: {left_out:?}"
    );
    assert!(
        unannotated.is_empty(),
        "documented without an annotation: {unannotated:?}"
    );
}

/// Every test's HTTP client is made by `support::client_builder`, whose
/// pooled connections idle out before the server closes an idle one (a
/// request sent on a connection as the server closes it fails with no
/// answer: the keep-alive flake of issue 66). A client made elsewhere
/// would keep reqwest's 90 s default.
#[test]
fn test_clients_idle_out_before_the_server_closes_their_connections() {
    let server_idle = seatmap::config::ServerLimits::default().header_read_timeout;
    assert!(
        crate::support::CLIENT_IDLE < server_idle,
        "the tests' clients idle {:?}, the server closes at {server_idle:?}",
        crate::support::CLIENT_IDLE
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut made_elsewhere = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("reading tests/it") {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == "support.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Spelled in pieces, so this file doesn't name what it looks for.
        for made in [["Client", "::new()"], ["Client", "::builder()"]] {
            let made = made.concat();
            if text.contains(&made) {
                made_elsewhere.push(format!("{}: {made}", path.display()));
            }
        }
    }
    assert!(
        made_elsewhere.is_empty(),
        "HTTP clients made outside support::client_builder: {made_elsewhere:?}"
    );
}
