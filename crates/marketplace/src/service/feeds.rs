//! What a warehouse sync reads from the provider, as the tenant's own connections and with no
//! caller behind it (the service acts for the tenant that connected the accounts): catalogued
//! reads, report creates through the ledger (so a sync's create is made once, shares pacing,
//! and recovers a 425 like any other), a report's state, and its document's text. The sync
//! crate (`pp-sync`) is the only user; a principal's calls go through [`super::Calls`].

use pp_core::{Error, Kind, Result, TenantId};
use serde_json::{Map, Value};

use super::{Api, Marketplace};
use crate::calls::build;
use crate::catalog;
use crate::connections::{self, ConnectionStatus, GrantKind};
use crate::documents;
use crate::ledger::Family;
use crate::merchants::Merchant;
use crate::reports;
use pp_store::pacing::Turn;

/// Who a feed reads as: a selling-side merchant, or an advertising login (the account that
/// owns the profile) with the profile it names.
#[derive(Debug, Clone)]
pub enum Account<'a> {
    Seller(&'a Merchant),
    Ads {
        login: &'a str,
        profile: Option<&'a str>,
    },
}

impl Account<'_> {
    fn grant(&self) -> (GrantKind, &str) {
        match self {
            Account::Seller(m) => (GrantKind::Seller, m.seller_id.as_str()),
            Account::Ads { login, .. } => (GrantKind::Ads, login),
        }
    }
}

/// The provider's reads for a warehouse sync (`Marketplace::feeds`), paced as background
/// work in one turn ([`Feeds::in_turn`]; recent days unless told).
pub struct Feeds<'a>(pub(super) &'a Marketplace, pub(super) Turn);

/// Which sync slice a report create is for.
pub struct SliceCreate<'a> {
    /// Names the slice and its run, so a step repeated after a crash gets the report its
    /// first try made.
    pub key: &'a str,
    /// An identical request is otherwise reused only when it was sent after this (the run's
    /// start, ms), so a re-read reads the provider afresh.
    pub fresh_since: i64,
}

impl<'a> Feeds<'a> {
    /// These reads in `turn`: what a sync asks for first while a plan's tokens are scarce
    /// (sales and traffic's recent days, then other recent days, then older ones), or ahead
    /// of its turn (only if the plan has room now, else `Throttled`, nothing sent).
    pub fn in_turn(self, turn: Turn) -> Feeds<'a> {
        Feeds(self.0, turn)
    }

    fn api(a: &Account<'_>) -> Api {
        match a {
            Account::Seller(_) => Api::Spapi,
            Account::Ads { .. } => Api::Ads,
        }
    }

    fn request<'r>(
        &self,
        op: &'r crate::catalog::Operation,
        args: &Map<String, Value>,
        tenant: &'r TenantId,
        account: &'r Account<'r>,
    ) -> Result<crate::upstream::Request<'r>> {
        let (grant, token) = account.grant();
        let merchant = match account {
            Account::Seller(m) => Some(*m),
            Account::Ads { .. } => None,
        };
        let mut req = build(op, args, tenant, grant, token, merchant)?;
        // a sync is background work: it never holds a live call back
        req.background = Some(self.1);
        if let Account::Ads {
            profile: Some(p), ..
        } = account
        {
            req.headers
                .push(("Amazon-Advertising-API-Scope".into(), (*p).to_owned()));
        }
        Ok(req)
    }

    fn operation(api: Api, id: &str) -> Result<&'static crate::catalog::Operation> {
        let cat = match api {
            Api::Spapi => catalog::spapi(),
            Api::Ads => catalog::ads(),
        };
        catalog::find(cat, id)
            .ok_or_else(|| Error::internal(format!("{id} missing from the catalog")))
    }

    /// Whether the account's connection can be used: `Ok` when active, the failure a call
    /// would meet otherwise (`reauth_required` for a lapsed or missing grant).
    pub async fn usable(&self, tenant: &TenantId, account: &Account<'_>) -> Result<()> {
        let (grant, token) = account.grant();
        let found =
            connections::for_call(&self.0.store, self.0.memory(), tenant, grant, token).await?;
        match found.map(|f| f.connection.status) {
            Some(ConnectionStatus::Active) => Ok(()),
            Some(ConnectionStatus::NotActivated) => Err(Error::new(
                Kind::MerchantInactive,
                format!("merchant {token} is not activated for advertising in this service"),
            )),
            _ => Err(Error::new(
                Kind::ReauthRequired,
                format!(
                    "merchant {token} has no usable {} connection",
                    grant.as_str()
                ),
            )
            .with_fix(
                "Connect the account again (console Accounts page); its sync resumes by itself.",
            )),
        }
    }

    /// A catalogued read (`op` by id) as `account`; the provider's JSON.
    pub async fn read(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        op: &str,
        args: &Map<String, Value>,
    ) -> Result<Value> {
        let op = Self::operation(Self::api(account), op)?;
        self.send(op, tenant, account, args).await
    }

    /// One of the gateway's own operations (`catalog::gateway`, by id) as `account`: the
    /// provider's JSON. Never reachable by a caller's call.
    pub async fn gateway_call(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        op: &str,
        args: &Map<String, Value>,
    ) -> Result<Value> {
        let op = catalog::find(catalog::gateway(), op).ok_or_else(|| {
            Error::internal(format!("{op} missing from the gateway's operations"))
        })?;
        self.send(op, tenant, account, args).await
    }

    /// Sends `op` as `account`; the provider's JSON.
    async fn send(
        &self,
        op: &crate::catalog::Operation,
        tenant: &TenantId,
        account: &Account<'_>,
        args: &Map<String, Value>,
    ) -> Result<Value> {
        let up = self.0.provider(Self::api(account))?;
        let req = self.request(op, args, tenant, account)?;
        Ok(up.client.send(up.store, up.sealer, &req).await?.body)
    }

    /// Creates a report for `slice` through the ledger; its id.
    pub async fn create_report(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        family: Family,
        body: Value,
        slice: SliceCreate<'_>,
    ) -> Result<String> {
        let SliceCreate { key, fresh_since } = slice;
        let api = Self::api(account);
        let up = self.0.provider(api)?;
        let op_id = match family {
            Family::Spapi => "reports.create_report",
            Family::AdsV3 => "reporting.create_report",
            Family::AdsV1 => "reporting_v1.create_report",
        };
        let op = Self::operation(api, op_id)?;
        let mut args = Map::new();
        args.insert("body".into(), body);
        let req = self.request(op, &args, tenant, account)?;
        let merchant = match account {
            Account::Seller(m) => Some(*m),
            Account::Ads { .. } => None,
        };
        let opts = reports::CreateOptions {
            key: Some(key),
            // a selling-side create whose outcome is unknown is reconciled by listing; the
            // advertising API offers no listing, but answers a repeated create 425 naming the
            // report it already made, so the sync sends again rather than wait forever
            accept_duplicate_risk: family != Family::Spapi,
            fresh_since: Some(fresh_since),
        };
        Ok(reports::create(&up, &req, family, merchant, opts)
            .await?
            .report_id)
    }

    /// The provider's today (the day after its last complete day of data).
    pub async fn today(&self) -> Result<chrono::NaiveDate> {
        let up = self
            .0
            .provider(Api::Spapi)
            .or_else(|_| self.0.provider(Api::Ads))?;
        up.client.provider_today().await
    }

    /// A selling-side report's state: the provider's report object.
    pub async fn spapi_report(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        id: &str,
    ) -> Result<Value> {
        let mut args = Map::new();
        args.insert("reportId".into(), id.into());
        self.read(tenant, account, "reports.get_report", &args)
            .await
    }

    /// An advertising report's state (Reporting v3 or v1): the provider's report object.
    pub async fn ads_report(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        family: Family,
        id: &str,
    ) -> Result<Value> {
        // v1 names its report in the body (`reportIds`) and answers 207 with the report
        // under `success`; v3 takes it in the path
        let mut args = Map::new();
        let op = match family {
            Family::AdsV1 => {
                args.insert("body".into(), serde_json::json!({ "reportIds": [id] }));
                "reporting_v1.retrieve_report"
            }
            _ => {
                args.insert("reportId".into(), id.into());
                "reporting.get_report"
            }
        };
        self.read(tenant, account, op, &args).await
    }

    /// A selling-side report document's text (un-gzipped when the provider compressed it).
    pub async fn spapi_document(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        doc: &str,
    ) -> Result<String> {
        let mut args = Map::new();
        args.insert("reportDocumentId".into(), doc.into());
        let d = self
            .read(tenant, account, "reports.get_report_document", &args)
            .await?;
        let url = d["url"].as_str().ok_or_else(|| {
            Error::new(
                Kind::UpstreamUnavailable,
                format!("the provider named no URL for document {doc}"),
            )
        })?;
        self.download(url, d["compressionAlgorithm"].as_str() == Some("GZIP"))
            .await
    }

    /// The text at a presigned document URL (no credentials sent), un-gzipped when `gzip`.
    pub async fn download(&self, url: &str, gzip: bool) -> Result<String> {
        let up = self
            .0
            .provider(Api::Spapi)
            .or_else(|_| self.0.provider(Api::Ads))?;
        let bytes = up.client.download(url).await?;
        if gzip {
            documents::gunzip(&bytes)
        } else {
            String::from_utf8(bytes).map_err(|e| {
                Error::new(
                    Kind::UpstreamUnavailable,
                    format!("the provider's document is not text: {e}"),
                )
            })
        }
    }
}
