//! The request plan as Rust data: where a request goes and with which
//! headers. Only `src/js/client.js` calls `fetch`.

pub mod call;
pub mod response;
pub mod retry;

use std::fmt;

use crate::error::{Error, Result};
use crate::query::url::{build_url, check_segment, normalize_base_url, Endpoint};
use crate::query::Query;

/// The settings of a client, validated.
///
/// `Debug` never shows the API key.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientConfig {
    base_url: String,
    repository: String,
    api_key: String,
    auth_scheme: String,
}

impl fmt::Debug for ClientConfig {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("repository", &self.repository)
            .field("api_key", &"<redacted>")
            .field("auth_scheme", &self.auth_scheme)
            .finish()
    }
}

/// Checks that an API key or a scheme prefix is printable ASCII (0x20 to
/// 0x7E): nothing else can be sent in a header as is, and CR and LF would
/// allow header injection. The value itself is never quoted in the error.
fn check_header_text(text: &str, what: &str) -> Result<()> {
    if !text.chars().all(|c| matches!(c, ' '..='~')) {
        return Err(Error::invalid_argument(format!(
            "{what} must be printable ASCII (characters 0x20 to 0x7E): \
             it contains a control character (a line break, say) or a character outside ASCII"
        )));
    }
    Ok(())
}

impl ClientConfig {
    /// Validates the settings: an absolute `http:`/`https:` base URL, a
    /// repository that is one path segment, a non-empty API key of
    /// printable ASCII (0x20 to 0x7E), and an optional scheme prefix such as
    /// `Bearer `, also printable ASCII. Errors are `invalid_argument` and
    /// never contain the key.
    pub fn new(
        base_url: &str,
        repository: &str,
        api_key: &str,
        auth_scheme: Option<&str>,
    ) -> Result<ClientConfig> {
        let base_url = normalize_base_url(base_url)?;
        check_segment(repository, "repository")?;
        if api_key.is_empty() {
            return Err(Error::invalid_argument("apiKey must not be empty"));
        }
        check_header_text(api_key, "apiKey")?;
        let auth_scheme = auth_scheme.unwrap_or_default();
        check_header_text(auth_scheme, "authScheme")?;
        // `fetch` trims a header's value: the service would get another key.
        let header = [auth_scheme.as_bytes(), api_key.as_bytes()].concat();
        if header.first() == Some(&b' ') || header.last() == Some(&b' ') {
            return Err(Error::invalid_argument(
                "the Authorization header (authScheme, then apiKey) must not start or end with a \
                 space: fetch would drop it, and send another key",
            ));
        }
        Ok(ClientConfig {
            base_url,
            repository: repository.to_owned(),
            api_key: api_key.to_owned(),
            auth_scheme: auth_scheme.to_owned(),
        })
    }

    /// The base URL, without trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The repository name.
    pub fn repository(&self) -> &str {
        &self.repository
    }

    /// The full URL of `endpoint` with `query`; the key is never in it.
    pub fn url(&self, endpoint: &Endpoint, query: Option<&Query>) -> Result<String> {
        endpoint.check()?;
        Ok(build_url(&self.base_url, &self.repository, endpoint, query))
    }

    /// The API key, to scrub it from anything a response echoes.
    pub fn secret(&self) -> &str {
        &self.api_key
    }

    /// The value of the `Authorization` header: the scheme prefix, then the key.
    pub fn authorization(&self) -> String {
        format!("{}{}", self.auth_scheme, self.api_key)
    }
}
