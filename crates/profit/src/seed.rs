//! The dev server's demo tenant starts with the demo world's costs and rates, as a seller who
//! entered them would have them: the world's `landed-costs.csv` (the cost file) and
//! `reference-rates.csv` (the ECB's historical form), each taken in once — a tenant that
//! holds any cost period or rate keeps what it holds, so a change made in the console stays.

use std::path::Path;

use pp_core::{Error, Result, TenantId};
use pp_store::Store;

use crate::{costs_csv, ecb};

/// Who the seeded rows are recorded as.
pub const BY: &str = "dev:demo-world";

/// Takes in the world's files in `dir` where the tenant holds none yet; how many periods and
/// rates were taken in.
pub async fn from_world(store: &Store, tenant: &TenantId, dir: &Path) -> Result<(usize, usize)> {
    let read = |name: &str| -> Result<Option<String>> {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(t) => Ok(Some(t)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::internal_with(
                format!("reading {}", path.display()),
                e,
            )),
        }
    };
    let costs = store.costs();
    let mut taken = (0, 0);
    if let Some(text) = read("landed-costs.csv")?
        && costs.periods(tenant, None, None).await?.is_empty()
    {
        let mut put = Vec::new();
        for (i, row) in costs_csv::read(&text)?.iter().enumerate() {
            put.push(row.checked(&format!("landed-costs.csv row {}", i + 1))?);
        }
        taken.0 = put.len();
        let reason = Some("the demo world's landed costs".to_owned());
        costs.write(tenant, put, Vec::new(), BY, reason).await?;
    }
    if let Some(text) = read("reference-rates.csv")?
        && costs.rate_coverage(tenant).await?.is_empty()
    {
        let rates = ecb::read(&text, &[])?;
        taken.1 = rates.len();
        costs
            .put_rates(tenant, rates, "demo world reference-rates.csv".into(), BY)
            .await?;
    }
    Ok(taken)
}
