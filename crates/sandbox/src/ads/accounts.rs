//! Advertiser and manager accounts of an advertising login. A seller login has one advertiser
//! account per profile; a vendor login has its DSP advertiser, whose account id is the numeric
//! `dspAdvertiserId` — the manager account's linked entry also names a seat id (`accountId`),
//! which is not an advertiser id: naming it where an advertiser is expected answers 401.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::answer;
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static ADVERTISERS: Op = Op {
    name: "accounts.queryAdvertiserAccounts",
    family: Family::AdsV1,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};
static MANAGERS: Op = Op {
    name: "accounts.getManagerAccounts",
    family: Family::Ads,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/adsApi/v1/query/advertiserAccounts",
            op(sim, &ADVERTISERS, post(advertisers)),
        )
        .route("/managerAccounts", op(sim, &MANAGERS, get(managers)))
}

/// One advertiser account the login may report on.
#[derive(Clone, Debug)]
pub struct Account {
    pub id: String,
    /// Sponsored ads profile, or none for DSP.
    pub profile: Option<i64>,
    /// DSP advertiser id, for DSP accounts.
    pub dsp: Option<i64>,
    pub seat: Option<String>,
    pub name: String,
    pub country: String,
    pub currency: String,
}

/// The advertiser account id of a sponsored ads profile.
pub fn profile_account(profile: i64) -> String {
    format!("amzn1.ads-account.g.{profile:x}")
}

/// Every advertiser account of the login.
pub fn of(sim: &Sim, c: &Caller) -> Result<Vec<Account>, SimError> {
    let mut out: Vec<Account> = sim
        .world()
        .rows("SELECT p.ProfileID, p.CountryCode, p.CurrencyCode, s.Name FROM ads_profile p JOIN seller s ON s.ID = p.SellerID WHERE p.MarketplaceSellerID = ?1 ORDER BY p.ProfileID", &[&c.subject])?
        .into_iter()
        .map(|r| Account {
            id: profile_account(r["ProfileID"].as_i64().unwrap_or(0)),
            profile: r["ProfileID"].as_i64(),
            dsp: None,
            seat: None,
            name: r["Name"].as_str().unwrap_or_default().to_owned(),
            country: r["CountryCode"].as_str().unwrap_or_default().to_owned(),
            currency: r["CurrencyCode"].as_str().unwrap_or_default().to_owned(),
        })
        .collect();
    for r in sim.world().rows("SELECT DspAdvertiserID, SeatID, Name, Currency FROM dsp_advertiser WHERE MarketplaceSellerID = ?1", &[&c.subject])? {
        let id = r["DspAdvertiserID"].as_i64().unwrap_or(0);
        out.push(Account {
            id: id.to_string(),
            profile: None,
            dsp: Some(id),
            seat: r["SeatID"].as_str().map(str::to_owned),
            name: r["Name"].as_str().unwrap_or_default().to_owned(),
            country: "US".into(),
            currency: r["Currency"].as_str().unwrap_or("USD").to_owned(),
        });
    }
    Ok(out)
}

/// Resolves an advertiser account id the login names; a DSP seat id is a 401.
pub fn resolve(sim: &Sim, c: &Caller, id: &str) -> Result<Option<Account>, SimError> {
    let all = of(sim, c)?;
    if all.iter().any(|a| a.seat.as_deref() == Some(id)) {
        return Err(SimError::new(
            401,
            "UNAUTHORIZED",
            format!("Not authorized to access advertiser account {id}"),
        )
        .for_family(Family::Ads));
    }
    Ok(all.into_iter().find(|a| a.id == id))
}

fn manager_id(c: &Caller) -> String {
    format!("amzn1.ads-account.m.{}", c.subject.to_lowercase())
}

async fn advertisers(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    _h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let body: Value = if b.is_empty() {
        json!({})
    } else {
        super::body(&b)?
    };
    let max = body["maxResults"].as_u64().unwrap_or(100);
    if !(10..=100).contains(&max) {
        return Err(
            SimError::new(400, "BAD_REQUEST", "maxResults must be from 10 to 100")
                .for_family(Family::Ads),
        );
    }
    let list: Vec<Value> = of(&sim, &c)?
        .iter()
        .map(|a| {
            let mut alt = vec![json!({ "countryCode": a.country, "entityId": c.subject })];
            if let Some(p) = a.profile {
                alt.push(json!({ "countryCode": a.country, "profileId": p.to_string() }));
            }
            if let Some(d) = a.dsp {
                alt.push(json!({ "countryCode": a.country, "dspAdvertiserId": d.to_string() }));
            }
            // businessDetails and status are required by the model: the demo accounts are
            // approved, their business address known to the provider by token
            json!({
                "advertiserAccountId": a.id,
                "displayName": a.name,
                "currencyCode": a.currency,
                "alternateIds": alt,
                "businessDetails": [{ "addressToken": format!("addr-{}", a.id) }],
                "status": { "statusCode": "APPROVED", "statusMessage": "The account is registered and can run campaigns." },
            })
        })
        .collect();
    Ok(answer(
        200,
        "application/json",
        &json!({ "advertiserAccounts": list }),
    ))
}

async fn managers(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
) -> Result<Response, SimError> {
    let linked: Vec<Value> = of(&sim, &c)?
        .iter()
        .map(|a| match a.dsp {
            Some(d) => json!({ "accountId": a.seat, "accountName": a.name, "accountType": "DSP_ADVERTISING_ACCOUNT", "dspAdvertiserId": d.to_string(), "marketplaceId": "ATVPDKIKX0DER" }),
            None => json!({ "accountId": c.subject, "accountName": a.name, "accountType": "SELLER", "profileId": a.profile.unwrap_or(0).to_string() }),
        })
        .collect();
    Ok(answer(
        200,
        "application/vnd.getmanageraccountsresponse.v1+json",
        &json!({ "managerAccounts": [{ "managerAccountId": manager_id(&c), "managerAccountName": format!("Demo agency for {}", c.subject), "linkedAccounts": linked }] }),
    ))
}
