//! Catalogued calls: the merchants, both operation catalogs, one selling-side or advertising
//! call (report creates through the ledger), and the advertising logins with their profiles.

use pp_core::{Error, Kind, Principal, Result, Scope, Source};
use pp_warehouse::directory;
use serde_json::Map;

use super::answers::{
    Acting, AdsAnswer, CallAnswer, Catalog, Login, LoginError, Merchants, Profiles, ReportRef,
    SpapiAnswer,
};
use super::requests::{AdsCall, CatalogQuery, IdempotencyKey, OperationId, SpapiCall};
use super::target::Target;
use super::writes::refuse_write_fields;
use super::{Api, Marketplace};
use crate::calls::build;
use crate::catalog::{self, OpKind, Operation};
use crate::connections::{self, ConnectionStatus, GrantKind};
use crate::ledger::Family;
use crate::merchants::Merchant;
use crate::upstream::Request;

/// The operations of a catalog whose id starts with `prefix` (all without one).
fn filtered(cat: &'static [Operation], prefix: Option<&str>) -> Vec<&'static Operation> {
    cat.iter()
        .filter(|o| prefix.is_none_or(|x| o.id.starts_with(x)))
        .collect()
}

/// The catalogued operation `id` names, allowed for `p`; a write only where the audited
/// flow serves it (`writes`).
fn callable<'a>(
    p: &Principal,
    cat: &'a [Operation],
    api: &str,
    id: &OperationId,
    writes: bool,
) -> Result<&'a Operation> {
    let op = catalog::find(cat, id.as_str()).ok_or_else(|| {
        Error::invalid_request(format!(
            "operation '{}' is not in the {api} catalog",
            id.as_str()
        ))
        .with_fix(format!(
            "GET /api/marketplace/{api}/operations lists every operation."
        ))
    })?;
    let scope: Scope = op
        .scope
        .parse()
        .map_err(|_| Error::internal(format!("{} names an unknown scope", op.id)))?;
    p.require(&[scope])?;
    if op.kind == OpKind::Write && !writes {
        return Err(Error::invalid_request(format!(
            "{} is a write: writes go through the audited preview-and-commit flow, which this call does not run",
            op.id
        )));
    }
    Ok(op)
}

/// Catalogued calls of the marketplace service (`Marketplace::calls`). Each read checks the
/// scope its operation declares (the catalog's data); a write is handed on to the write handle
/// of its kind, which only a principal holding the write scope obtains.
pub struct Calls<'a>(pub(super) &'a Marketplace);

impl Calls<'_> {
    /// The merchants `p` can act for (`retail:read`).
    pub async fn merchants(&self, p: &Principal) -> Result<Merchants> {
        p.require(&[Scope::RetailRead])?;
        Ok(Merchants {
            merchants: self.0.merchant_rows(p).await?,
        })
    }

    /// `GET /v1/accounts` (`account:read`): the tenant's merchant rows, each with the state of
    /// the service's selling-side and advertising grants for it.
    pub async fn accounts(
        &self,
        p: &Principal,
        args: &pp_warehouse::v1::Args,
        cursors: &pp_core::cursor::Cursors,
    ) -> Result<serde_json::Value> {
        p.require(&[Scope::AccountRead])?;
        let mut grants = pp_warehouse::v1::Grants::default();
        for c in connections::list(&self.0.store, &p.tenant).await? {
            let domain = match c.kind {
                GrantKind::Seller => &mut grants.retail,
                GrantKind::Ads => &mut grants.ads,
            };
            domain.insert(c.merchant, c.status.as_str());
        }
        let engine = self.0.warehouses.of(p).await?;
        let ctx = pp_warehouse::v1::Ctx {
            engine: engine.as_ref(),
            limits: &self.0.warehouses.limits,
            tenant: p.tenant.as_str(),
            cursors,
        };
        pp_warehouse::v1::accounts(&ctx, args, &grants).await
    }

    /// The selling-side catalog with `merchantIdentifiers` (`retail:read`).
    pub fn spapi_operations(&self, p: &Principal, q: CatalogQuery) -> Result<Catalog> {
        p.require(&[Scope::RetailRead])?;
        Ok(Catalog {
            operations: filtered(catalog::spapi(), q.prefix.as_deref()),
            merchant_identifiers: Some(catalog::merchant_identifiers()),
        })
    }

    /// The advertising catalog (`ads:read`).
    pub fn ads_operations(&self, p: &Principal, q: CatalogQuery) -> Result<Catalog> {
        p.require(&[Scope::AdsRead])?;
        Ok(Catalog {
            operations: filtered(catalog::ads(), q.prefix.as_deref()),
            merchant_identifiers: None,
        })
    }

    /// One selling-side call (docs/marketplace.md); the guarded listing write previews or commits a change
    /// set (docs/writes.md).
    pub async fn spapi_call(
        &self,
        p: &Principal,
        req: SpapiCall,
        key: Option<IdempotencyKey>,
    ) -> Result<SpapiAnswer> {
        p.require(&[Scope::RetailRead])?;
        self.0.provider(Api::Spapi)?;
        let op = callable(p, catalog::spapi(), "spapi", &req.operation, true)?;
        if op.kind == OpKind::Write {
            return self.0.listing_writes(p)?.write(op, req, key).await;
        }
        let given = [
            ("dryRun", req.dry_run.is_some()),
            ("changeSetId", req.change_set_id.is_some()),
            ("changeSetHash", req.change_set_hash.is_some()),
        ];
        if let Some((name, _)) = given.iter().find(|(_, set)| *set) {
            return Err(Error::invalid_request(format!(
                "{name} is for the guarded listing write; {} is not it",
                op.id
            )));
        }
        let merchant = self.0.resolve(p, &req.selector()?).await?;
        let query = req.query.unwrap_or_default();
        let built = build(
            op,
            &query,
            &p.tenant,
            GrantKind::Seller,
            &merchant.seller_id,
            Some(&merchant),
        )?;
        let acting = Acting::Merchant(merchant.clone());
        let risk = req.accept_duplicate_risk;
        self.send(Api::Spapi, op, &built, Some(&merchant), (key, risk), acting)
            .await
            .map(SpapiAnswer::Call)
    }

    /// Who a call acts as: the profile's owner (and the profile, with its currency) for
    /// profile-scoped operations, else the merchant the selector names.
    async fn ads_target(&self, p: &Principal, op: &Operation, req: &AdsCall) -> Result<Target> {
        if !op.profile_scoped.unwrap_or(false) {
            return Ok(Target {
                login: self.0.resolve(p, &req.selector()?).await?.seller_id,
                profile: None,
                currency: None,
            });
        }
        let profile = req.profile_id.ok_or_else(|| {
            Error::invalid_request(format!(
                "{} is profile-scoped: send profileId (GET /api/marketplace/ads/profiles lists them)",
                op.id
            ))
        })?;
        let engine = self.0.warehouses.of(p).await?;
        let found = directory::ads_profile(engine.as_ref(), &self.0.warehouses.limits, profile.0)
            .await?
            .ok_or_else(|| {
                Error::new(
                    Kind::ProfileNotAuthorized,
                    format!(
                        "profile {} is not one of this tenant's advertising profiles",
                        profile.0
                    ),
                )
            })?;
        Ok(Target {
            login: found.owner,
            profile: Some(profile.0.to_string()),
            currency: Some(found.currency),
        })
    }

    /// One advertising call (docs/marketplace.md, docs/writes.md): a write goes through the audited flow (a dry run
    /// unless it commits a plan).
    pub async fn ads_call(
        &self,
        p: &Principal,
        req: AdsCall,
        key: Option<IdempotencyKey>,
    ) -> Result<AdsAnswer> {
        p.require(&[Scope::AdsRead])?;
        self.0.provider(Api::Ads)?;
        let op = callable(p, catalog::ads(), "ads", &req.operation, true)?;
        if op.kind != OpKind::Write {
            refuse_write_fields(op, &req)?;
        }
        let target = self.ads_target(p, op, &req).await?;
        let login = target.login.clone();
        let found = connections::for_call(
            &self.0.store,
            self.0.memory(),
            &p.tenant,
            GrantKind::Ads,
            &login,
        )
        .await?;
        match found.map(|f| f.connection) {
            None => {
                return Err(Error::new(
                    Kind::MerchantNotFound,
                    format!("merchant {login} has no advertising connection"),
                ));
            }
            Some(c) if c.status == ConnectionStatus::NotActivated => {
                return Err(Error::new(Kind::MerchantInactive, format!("merchant {login} is not activated for advertising in this service"))
                    .with_fix("A person must activate advertising for this merchant; re-authorizing does not help."));
            }
            Some(_) => {}
        }
        if op.kind == OpKind::Write {
            return self.0.ads_writes(p)?.write(op, req, key, target).await;
        }
        let profile = target.profile;
        let query = req.query.unwrap_or_default();
        let mut built = build(op, &query, &p.tenant, GrantKind::Ads, &login, None)?;
        if let Some(pid) = &profile {
            built
                .headers
                .push(("Amazon-Advertising-API-Scope".into(), pid.clone()));
        }
        let acting = Acting::Login {
            seller_id: login.clone(),
            profile_id: profile,
        };
        let risk = req.accept_duplicate_risk;
        self.send(Api::Ads, op, &built, None, (key, risk), acting)
            .await
            .map(AdsAnswer::Call)
    }

    /// Sends a call; report creates go through the ledger (one create per request, the same
    /// id for identical requests and repeated keys).
    async fn send(
        &self,
        api: Api,
        op: &Operation,
        req: &Request<'_>,
        merchant: Option<&Merchant>,
        (key, accept_duplicate_risk): (Option<IdempotencyKey>, bool),
        acting: Acting,
    ) -> Result<CallAnswer> {
        let up = self.0.provider(api)?;
        let (reply, report) = match Family::of(&op.id) {
            None => (up.client.send(up.store, up.sealer, req).await?, None),
            Some(family) => {
                let opts = crate::reports::CreateOptions {
                    key: key.as_ref().map(IdempotencyKey::as_str),
                    accept_duplicate_risk,
                    fresh_since: None,
                };
                let c = crate::reports::create(&up, req, family, merchant, opts).await?;
                let r = ReportRef {
                    report_id: c.report_id,
                    reused: c.reused,
                    recovered: c.recovered,
                    duplicate_risk: c.duplicate_risk,
                };
                (c.reply, Some(r))
            }
        };
        Ok(CallAnswer {
            operation: op.id.clone(),
            merchant: acting,
            status: reply.status,
            data: reply.body,
            report,
        })
    }

    /// Every advertising login with its profiles (`ads:read`); a login's own refusal is its
    /// row's, the provider being down is the call's.
    pub async fn ads_profiles(&self, p: &Principal) -> Result<Profiles> {
        p.require(&[Scope::AdsRead])?;
        let up = self.0.provider(Api::Ads)?;
        let op = catalog::find(catalog::ads(), "profiles.list")
            .ok_or_else(|| Error::internal("profiles.list missing from the catalog"))?;
        let mut logins = Vec::new();
        for c in connections::list(&self.0.store, &p.tenant)
            .await?
            .into_iter()
            .filter(|c| c.kind == GrantKind::Ads)
        {
            let mut login = Login {
                seller_id: c.merchant.clone(),
                status: c.status,
                profiles: serde_json::Value::Array(Vec::new()),
                error: None,
            };
            if c.status == ConnectionStatus::Active {
                let req = build(
                    op,
                    &Map::new(),
                    &p.tenant,
                    GrantKind::Ads,
                    &c.merchant,
                    None,
                )?;
                match up.client.send(up.store, up.sealer, &req).await {
                    Ok(reply) => login.profiles = reply.body,
                    Err(e)
                        if e.kind.source() == Source::Account
                            || e.kind == Kind::ProfileNotAuthorized =>
                    {
                        if e.kind == Kind::ReauthRequired {
                            login.status = ConnectionStatus::Lapsed;
                        }
                        login.error = Some(LoginError {
                            kind: e.kind.code(),
                            message: e.message().to_owned(),
                        });
                    }
                    Err(e) => return Err(e),
                }
            }
            logins.push(login);
        }
        Ok(Profiles { logins })
    }
}
