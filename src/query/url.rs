//! Endpoints and the request URL `{baseUrl}/v1/{repository}/{endpoint}?{query}`.

use crate::error::{Error, Result};
use crate::json::record::quoted;
use crate::query::encode::encode_uri_component;
use crate::query::Query;

/// Checks one path segment: non-empty, not `.` or `..`.
pub(crate) fn check_segment<'a>(segment: &'a str, what: &str) -> Result<&'a str> {
    match segment {
        "" => Err(Error::invalid_argument(format!("{what} must not be empty"))),
        "." | ".." => Err(Error::invalid_argument(format!(
            "{what} must not be {}",
            quoted(segment)
        ))),
        _ => Ok(segment),
    }
}

/// An endpoint of a repository.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `/v1/{repo}`: the repository info.
    Repository,
    /// `/v1/{repo}/documents`: all documents (a list).
    Documents,
    /// `/v1/{repo}/documents/{id}`: one document.
    Document(String),
    /// `/v1/{repo}/collections/{apiId}`: a collection (a list).
    Collection(String),
    /// `/v1/{repo}/alias/{apiId}`: the document behind an alias.
    Alias(String),
    /// `/v1/{repo}/assets/{id}`: one asset.
    Asset(String),
    /// Any other endpoint, as segments (a raw string split on `/`).
    Raw(Vec<String>),
}

impl Endpoint {
    /// Parses a raw endpoint string: split on `/`, each segment checked and
    /// later encoded. A leading `/` is ignored; `""` is the repository info.
    /// The paths of the typed endpoints are those endpoints
    /// (`"collections/posts"` is `Collection("posts")`): the same request,
    /// answered and cached the same way.
    pub fn raw(text: &str) -> Result<Endpoint> {
        let text = text.strip_prefix('/').unwrap_or(text);
        if text.is_empty() {
            return Ok(Endpoint::Repository);
        }
        let mut segments = Vec::new();
        for segment in text.split('/') {
            segments.push(check_segment(segment, "an endpoint segment")?.to_owned());
        }
        Ok(match segments.as_slice() {
            [only] if only == "documents" => Endpoint::Documents,
            [kind, id] => match kind.as_str() {
                "documents" => Endpoint::Document(id.clone()),
                "collections" => Endpoint::Collection(id.clone()),
                "alias" => Endpoint::Alias(id.clone()),
                "assets" => Endpoint::Asset(id.clone()),
                _ => Endpoint::Raw(segments),
            },
            _ => Endpoint::Raw(segments),
        })
    }

    /// Validates the id of a typed endpoint.
    pub fn check(&self) -> Result<()> {
        match self {
            Endpoint::Document(id) => check_segment(id, "a document id").map(drop),
            Endpoint::Asset(id) => check_segment(id, "an asset id").map(drop),
            Endpoint::Collection(api_id) => check_segment(api_id, "a collection api id").map(drop),
            Endpoint::Alias(api_id) => check_segment(api_id, "an alias api id").map(drop),
            Endpoint::Raw(segments) => segments
                .iter()
                .try_for_each(|segment| check_segment(segment, "an endpoint segment").map(drop)),
            Endpoint::Repository | Endpoint::Documents => Ok(()),
        }
    }

    /// The path segments after the repository, not encoded.
    pub fn segments(&self) -> Vec<&str> {
        match self {
            Endpoint::Repository => Vec::new(),
            Endpoint::Documents => vec!["documents"],
            Endpoint::Document(id) => vec!["documents", id],
            Endpoint::Collection(api_id) => vec!["collections", api_id],
            Endpoint::Alias(api_id) => vec!["alias", api_id],
            Endpoint::Asset(id) => vec!["assets", id],
            Endpoint::Raw(segments) => segments.iter().map(String::as_str).collect(),
        }
    }
}

/// Validates a base URL: absolute `http:` or `https:`, a host, no query or
/// fragment; trailing `/` are dropped.
pub(crate) fn normalize_base_url(base_url: &str) -> Result<String> {
    let invalid = |why: &str| {
        Error::invalid_argument(format!(
            "invalid baseUrl {}: {why} (expected an absolute http: or https: URL such as \"https://api.example.com\")",
            quoted(&without_credentials(base_url))
        ))
    };
    let lower = base_url.get(..8).unwrap_or(base_url).to_ascii_lowercase();
    let scheme_len = if lower.starts_with("https://") {
        8
    } else if lower.starts_with("http://") {
        7
    } else {
        return Err(invalid("it must start with http:// or https://"));
    };
    // The scheme is ASCII: the split is at a character boundary.
    let (scheme, rest) = base_url
        .split_at_checked(scheme_len)
        .ok_or_else(|| invalid("it must start with http:// or https://"))?;
    if base_url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(invalid("it contains spaces or control characters"));
    }
    if base_url.contains(['?', '#']) {
        return Err(invalid("it must not have a query or fragment"));
    }
    if base_url.bytes().any(|b| b == b'\\') {
        // A URL parser reads it as `/`: the URL fetched would not be the one shown.
        return Err(invalid("it must not contain a backslash"));
    }
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    if authority.bytes().any(|b| b == b'@') {
        return Err(invalid(
            "it must not hold credentials (user:password@): the key goes in apiKey",
        ));
    }
    check_authority(authority).map_err(invalid)?;
    if path.split('/').any(is_dot_segment) {
        return Err(invalid("its path must not have `.` or `..` segments"));
    }
    let scheme = scheme.to_ascii_lowercase();
    Ok(format!("{scheme}{}", rest.trim_end_matches('/')))
}

/// `url` for messages: with an `@` anywhere (URL parsers read credentials
/// in several spellings: `http:user:pass@h`, `http:///user:pass@h`, ...),
/// what comes between the scheme and the last `@` is not shown.
fn without_credentials(url: &str) -> String {
    let Some(at) = url.bytes().rposition(|b| b == b'@') else {
        return url.to_owned();
    };
    // The scheme stays when it is one (not a user name before a `:`).
    let head = ["http:", "https:"]
        .into_iter()
        .find(|scheme| {
            url.get(..scheme.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
        })
        .unwrap_or_default();
    format!("{head}[credentials]{}", url.get(at..).unwrap_or_default())
}

/// Checks a base URL's `host[:port]` as URL parsers read it: a host (an IPv6
/// address in brackets, or a name without the characters a host cannot
/// hold), and a port from 0 to 65535 (or none).
fn check_authority(authority: &str) -> std::result::Result<(), &'static str> {
    let port = if let Some(inner) = authority.strip_prefix('[') {
        let (address, after) = inner.split_once(']').ok_or("its IPv6 address has no `]`")?;
        let hex = |c: char| c.is_ascii_hexdigit() || c == ':' || c == '.';
        if address.bytes().filter(|&b| b == b':').count() < 2 || !address.chars().all(hex) {
            return Err("its IPv6 address is not one");
        }
        match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or("its port must follow a `:`")?,
            ),
        }
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        // The host's forbidden characters (the URL standard's), and `%`: a
        // percent-encoded host is read decoded.
        let forbidden = |c: char| {
            matches!(
                c,
                '#' | '%' | '/' | ':' | '<' | '>' | '?' | '@' | '[' | ']' | '\\' | '^' | '|'
            ) || c.is_control()
        };
        if host.is_empty() {
            return Err("it has no host");
        }
        if host.chars().any(forbidden) {
            return Err("its host holds a character a host cannot hold");
        }
        port
    };
    match port {
        Some(port) if !port.is_empty() => {
            let value = port.bytes().try_fold(0u32, |value, b| {
                let digit = b.wrapping_sub(b'0');
                (digit < 10 && value <= 65535).then(|| value * 10 + u32::from(digit))
            });
            match value {
                Some(0..=65535) => Ok(()),
                _ => Err("its port must be a number from 0 to 65535"),
            }
        }
        _ => Ok(()),
    }
}

/// `.` or `..` as URL parsers read a path segment (`%2e` is a `.` there).
fn is_dot_segment(segment: &str) -> bool {
    match after_dot(segment) {
        Some("") => true,
        Some(rest) => after_dot(rest) == Some(""),
        None => false,
    }
}

/// What follows a leading `.` or `%2e` of `text`, if it has one.
fn after_dot(text: &str) -> Option<&str> {
    match text.strip_prefix('.') {
        Some(rest) => Some(rest),
        None => (text
            .get(..3)
            .is_some_and(|head| head.eq_ignore_ascii_case("%2e")))
        .then(|| text.get(3..).unwrap_or_default()),
    }
}

/// Builds `{base}/v1/{repository}/{endpoint}?{query}`; `base` must come from
/// [`normalize_base_url`] and `repository` be checked.
pub(crate) fn build_url(
    base: &str,
    repository: &str,
    endpoint: &Endpoint,
    query: Option<&Query>,
) -> String {
    let mut url = format!("{base}/v1/{}", encode_uri_component(repository));
    for segment in endpoint.segments() {
        url.push('/');
        url.push_str(&encode_uri_component(segment));
    }
    if let Some(query) = query {
        let text = query.to_string();
        if !text.is_empty() {
            url.push('?');
            url.push_str(&text);
        }
    }
    url
}
