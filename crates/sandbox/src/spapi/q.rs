//! Query-string parameters as the selling side reads them: required ones, comma-separated
//! lists, bounded numbers, with the provider's `InvalidInput` errors.

use crate::error::SimError;
use crate::lwa::Caller;
use crate::sim::Sim;
use crate::world::Seller;

/// A request's query parameters.
pub struct Q(Vec<(String, String)>);

impl Q {
    pub fn parse(raw: Option<&str>) -> Self {
        Self(
            form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .into_owned()
                .collect(),
        )
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
    }

    pub fn required(&self, k: &str) -> Result<&str, SimError> {
        self.get(k)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| SimError::invalid(format!("Missing required parameter: {k}")))
    }

    /// A comma-separated list (or the parameter repeated).
    pub fn list(&self, k: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(n, _)| n == k)
            .flat_map(|(_, v)| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// A whole number in `lo..=hi`, or `default`.
    pub fn int(&self, k: &str, lo: i64, hi: i64, default: i64) -> Result<i64, SimError> {
        match self.get(k) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or_else(|| {
                    SimError::invalid(format!("{k} must be a whole number from {lo} to {hi}"))
                }),
        }
    }

    /// Whether any parameter other than `allowed` was sent.
    pub fn only(&self, allowed: &[&str]) -> Result<(), SimError> {
        match self.0.iter().find(|(n, _)| !allowed.contains(&n.as_str())) {
            Some((n, _)) => Err(SimError::invalid(format!("Unknown parameter: {n}"))),
            None => Ok(()),
        }
    }

    /// The caller's seller row in the one marketplace named by `key`.
    pub fn seller(&self, sim: &Sim, c: &Caller, key: &str) -> Result<Seller, SimError> {
        let ids = self.list(key);
        if ids.len() != 1 {
            return Err(SimError::invalid(format!(
                "{key} must name exactly one marketplace"
            )));
        }
        seller_in(sim, c, &ids[0])
    }
}

/// The caller's seller row in marketplace `id`.
pub fn seller_in(sim: &Sim, c: &Caller, id: &str) -> Result<Seller, SimError> {
    sim.world()
        .seller_rows(&c.subject)?
        .into_iter()
        .find(|s| s.marketplace_id == id)
        .ok_or_else(|| {
            SimError::invalid(format!(
                "The seller does not participate in marketplace {id}"
            ))
        })
}

/// An opaque page token for `offset` (base-36, as tokens look opaque).
pub fn token(prefix: &str, offset: usize) -> String {
    format!("{prefix}{}", radix(offset as u64))
}

fn radix(mut n: u64) -> String {
    const D: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut s = Vec::new();
    loop {
        s.push(D[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// The offset a token made by [`token`] with `prefix` carries.
pub fn offset(prefix: &str, t: &str) -> Result<usize, SimError> {
    t.strip_prefix(prefix)
        .and_then(|n| u64::from_str_radix(n, 36).ok())
        .map(|n| n as usize)
        .ok_or_else(|| SimError::invalid("The pagination token is invalid or expired"))
}
