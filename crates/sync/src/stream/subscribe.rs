//! The tenant's queues made (one per dataset, on the gateway's SQS) and every advertising
//! profile of its warehouse's sellers subscribed to every dataset, through the gateway's own
//! operations (`Feeds::gateway_call`: no caller can point a subscription elsewhere). A
//! subscription's client request token is made from the tenant, profile and dataset, so
//! subscribing again answers the subscriptions already made.

use pp_core::{Error, Result, TenantId};
use pp_marketplace::connections::{self, ConnectionStatus, GrantKind};
use pp_marketplace::merchants::Merchant;
use pp_marketplace::service::Account;
use pp_store::streams::Subscription;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::Streams;
use super::message::DATASETS;
use super::notices;

/// The queue name of a tenant's dataset (letters, digits, hyphens; at most 80).
pub fn queue_name(prefix: &str, tenant: &TenantId, dataset: &str) -> String {
    let mut name = format!("{prefix}-{}-{dataset}", tenant.as_str());
    name.truncate(80);
    name
}

fn profile_id(p: &Value) -> Option<String> {
    p["profileId"]
        .as_i64()
        .map(|i| i.to_string())
        .or_else(|| p["profileId"].as_str().map(str::to_owned))
}

/// Makes the tenant's queues and subscribes each of its sellers' advertising profiles to
/// each dataset; the subscriptions recorded.
pub(crate) async fn subscribe_tenant(s: &Streams, tenant: &TenantId) -> Result<Vec<Subscription>> {
    let cfg = super::consume::stream_config(s)?.clone();
    let sellers = s.sync.sellers(tenant).await?;
    let conns = connections::list(&s.sync.store, tenant).await?;
    let feeds = s.sync.market.feeds();
    let mut queues = std::collections::BTreeMap::new();
    for c in conns
        .iter()
        .filter(|c| c.kind == GrantKind::Ads && c.status == ConnectionStatus::Active)
    {
        let login = Account::Ads {
            login: &c.merchant,
            profile: None,
        };
        let profiles = feeds
            .read(tenant, &login, "profiles.list", &Map::new())
            .await?;
        for p in profiles.as_array().into_iter().flatten() {
            let (token, market) = (
                p["accountInfo"]["id"].as_str().unwrap_or_default(),
                p["accountInfo"]["marketplaceStringId"]
                    .as_str()
                    .unwrap_or_default(),
            );
            let (Some(profile), Some(seller)) = (
                profile_id(p),
                sellers
                    .iter()
                    .find(|s| s.token == token && s.marketplace_id == market),
            ) else {
                continue;
            };
            for (dataset, _) in DATASETS {
                let (url, arn) =
                    match queues.get(dataset) {
                        Some(q) => Clone::clone(q),
                        None => {
                            let name = queue_name(&cfg.queue_prefix, tenant, dataset);
                            let url =
                                cfg.sqs.create_queue(&name).await.map_err(|e| {
                                    Error::internal_with("making a stream queue", e)
                                })?;
                            let arn = cfg.sqs.arn(&url).await.map_err(|e| {
                                Error::internal_with("reading a stream queue's ARN", e)
                            })?;
                            queues.insert(*dataset, (url.clone(), arn.clone()));
                            (url, arn)
                        }
                    };
                let token = hex::encode(Sha256::digest(
                    format!("{}|{profile}|{dataset}", tenant.as_str()).as_bytes(),
                ));
                let mut args = Map::new();
                args.insert(
                    "body".into(),
                    json!({
                        "clientRequestToken": &token[..32],
                        "dataSetId": dataset,
                        "destinationArn": arn,
                        "notes": "partner-platform warehouse sync",
                    }),
                );
                let account = Account::Ads {
                    login: &c.merchant,
                    profile: Some(&profile),
                };
                let made = feeds
                    .gateway_call(tenant, &account, "streams.create_subscription", &args)
                    .await?;
                let id = made["subscriptionId"].as_str().ok_or_else(|| {
                    Error::internal("the provider's subscription answer has no subscriptionId")
                })?;
                s.sync
                    .store
                    .streams()
                    .put_subscription(
                        tenant,
                        dataset,
                        &Subscription {
                            profile_id: profile.clone(),
                            dataset: (*dataset).to_owned(),
                            seller_id: seller.id,
                            subscription_id: id.to_owned(),
                            queue_url: url,
                            status: "PENDING_CONFIRMATION".into(),
                            created_ms: pp_store::jobs::now_ms(),
                        },
                    )
                    .await?;
            }
            refresh_statuses(s, tenant, &c.merchant, &profile).await?;
        }
    }
    subscribe_notices(s, tenant).await?;
    s.sync.store.streams().subscriptions(tenant).await
}

/// Makes the tenant's notifications queue and its destination at the provider (found by its
/// ARN when made before), and subscribes each selling partner of the warehouse with an active
/// selling-side grant to every notification type (a subscription held already is read, not
/// made again).
async fn subscribe_notices(s: &Streams, tenant: &TenantId) -> Result<()> {
    let cfg = super::consume::stream_config(s)?.clone();
    let active: Vec<String> = connections::list(&s.sync.store, tenant)
        .await?
        .into_iter()
        .filter(|c| c.kind == GrantKind::Seller && c.status == ConnectionStatus::Active)
        .map(|c| c.merchant)
        .collect();
    let mut partners: Vec<Merchant> = Vec::new();
    for seller in s.sync.sellers(tenant).await? {
        if active.contains(&seller.token) && !partners.iter().any(|m| m.seller_id == seller.token) {
            partners.push(Merchant::from(seller));
        }
    }
    let Some(first) = partners.first() else {
        return Ok(());
    };
    let name = queue_name(&cfg.queue_prefix, tenant, notices::QUEUE);
    let url = cfg
        .sqs
        .create_queue(&name)
        .await
        .map_err(|e| Error::internal_with("making the notifications queue", e))?;
    let arn = cfg
        .sqs
        .arn(&url)
        .await
        .map_err(|e| Error::internal_with("reading the notifications queue's ARN", e))?;
    let feeds = s.sync.market.feeds();
    // destinations are the application's: any partner's grant reads and makes them
    let first = Account::Seller(first);
    let listed = feeds
        .gateway_call(
            tenant,
            &first,
            "notifications.list_destinations",
            &Map::new(),
        )
        .await?;
    let held = listed["payload"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["resource"]["sqs"]["arn"] == arn.as_str())
        .and_then(|d| d["destinationId"].as_str().map(str::to_owned));
    let destination = match held {
        Some(id) => id,
        None => {
            let mut args = Map::new();
            args.insert(
                "body".into(),
                json!({ "name": name, "resourceSpecification": { "sqs": { "arn": arn } } }),
            );
            let made = feeds
                .gateway_call(tenant, &first, "notifications.create_destination", &args)
                .await?;
            made["payload"]["destinationId"]
                .as_str()
                .ok_or_else(|| Error::internal("the provider's destination has no destinationId"))?
                .to_owned()
        }
    };
    for m in &partners {
        let account = Account::Seller(m);
        for kind in notices::TYPES {
            let mut args = Map::new();
            args.insert("notificationType".into(), (*kind).into());
            let id = match feeds
                .gateway_call(tenant, &account, "notifications.get_subscription", &args)
                .await
            {
                Ok(held) => held["payload"]["subscriptionId"]
                    .as_str()
                    .map(str::to_owned),
                Err(e) if pp_marketplace::triage::provider_not_found(&e) => None,
                Err(e) => return Err(e),
            };
            let id = match id {
                Some(id) => id,
                None => {
                    args.insert(
                        "body".into(),
                        json!({ "payloadVersion": "1.0", "destinationId": destination }),
                    );
                    let made = feeds
                        .gateway_call(tenant, &account, "notifications.create_subscription", &args)
                        .await?;
                    made["payload"]["subscriptionId"]
                        .as_str()
                        .ok_or_else(|| {
                            Error::internal("the provider's subscription has no subscriptionId")
                        })?
                        .to_owned()
                }
            };
            let sub = Subscription {
                profile_id: m.seller_id.clone(),
                dataset: (*kind).to_owned(),
                seller_id: 0,
                subscription_id: id,
                queue_url: url.clone(),
                status: "ACTIVE".into(),
                created_ms: pp_store::jobs::now_ms(),
            };
            s.sync
                .store
                .streams()
                .put_subscription(tenant, notices::QUEUE, &sub)
                .await?;
        }
    }
    Ok(())
}

/// Reads the provider's status of the profile's subscriptions into the recorded ones.
async fn refresh_statuses(
    s: &Streams,
    tenant: &TenantId,
    login: &str,
    profile: &str,
) -> Result<()> {
    let account = Account::Ads {
        login,
        profile: Some(profile),
    };
    let listed = s
        .sync
        .market
        .feeds()
        .gateway_call(tenant, &account, "streams.list_subscriptions", &Map::new())
        .await?;
    let mine = s.sync.store.streams().subscriptions(tenant).await?;
    for sub in listed["subscriptions"].as_array().into_iter().flatten() {
        let (Some(id), Some(status)) = (sub["subscriptionId"].as_str(), sub["status"].as_str())
        else {
            continue;
        };
        if let Some(m) = mine
            .iter()
            .find(|m| m.subscription_id == id && m.status != status)
        {
            let mut m = m.clone();
            m.status = status.to_owned();
            s.sync
                .store
                .streams()
                .put_subscription(tenant, &m.dataset, &m)
                .await?;
        }
    }
    Ok(())
}
