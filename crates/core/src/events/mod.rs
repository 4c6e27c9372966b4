//! The outbound events' vocabulary (docs/events.md): every type a service appends to the event
//! feed, the scope a reader must hold to see it (the surface it belongs to), and what it means.
//! A new event type is a row of [`TYPES`]; the feed, the webhooks' type filters and the
//! reference page read this table, and a service appends its events by naming the row.

use crate::Scope;

pub mod payloads;

pub use payloads::Event;

/// One event type.
#[derive(Debug, PartialEq, Eq)]
pub struct EventType {
    /// The wire name (`ads.write.committed`): a family, then what happened.
    pub name: &'static str,
    /// The scope a credential needs to see events of this type in the feed.
    pub scope: Scope,
    /// What it means, in one line (the reference page and the tool's description).
    pub about: &'static str,
}

macro_rules! event_types {
    ($( $konst:ident => $name:literal, $scope:ident, $about:literal; )*) => {
        $(
            #[doc = $about]
            pub const $konst: EventType = EventType { name: $name, scope: Scope::$scope, about: $about };
        )*
        /// Every event type, in the order the reference page lists them.
        pub const TYPES: &[EventType] = &[ $( $konst ),* ];
    };
}

event_types! {
    ADS_WRITE_COMMITTED => "ads.write.committed", AdsRead,
        "An advertising write plan was committed and the provider answered (per-item results in data).";
    ADS_WRITE_FAILED => "ads.write.failed", AdsRead,
        "An advertising write plan's commit reached the provider and failed as a whole.";
    APPROVAL_REQUESTED => "approval.requested", AdsRead,
        "A commit was held for a person's approval by the tenant's write policy.";
    APPROVAL_DECIDED => "approval.decided", AdsRead,
        "A person approved or rejected a held commit (data.decision), and what the approved commit did.";
    LISTING_COMMITTED => "listing.change_set.committed", RetailRead,
        "A listing change set was committed to the provider.";
    LISTING_IMAGE_CHECKED => "listing.image_check.finished", RetailRead,
        "The image check after a listing change set finished (data.outcome).";
    PRICING_RUN_FINISHED => "pricing.run.finished", RetailRead,
        "A paced pricing run ended: succeeded, failed or cancelled (data.status).";
    REPORT_DONE => "report.done", RetailRead,
        "A report the gateway watched is ready to download.";
    REPORT_FATAL => "report.fatal", RetailRead,
        "A report the gateway watched ended without a document (fatal, cancelled or stuck).";
    INTELLIGENCE_RUN_FINISHED => "intelligence.run.finished", IntelligenceRead,
        "An asynchronous intelligence run finished (data.status: complete or failed).";
    CONNECTION_LAPSED => "connection.lapsed", AccountRead,
        "A connected account's grant stopped working (revoked or expired at the provider).";
    CONNECTION_RESTORED => "connection.restored", AccountRead,
        "A lapsed connection works again (reconnected).";
    SYNC_FINISHED => "warehouse.sync.finished", AccountRead,
        "A warehouse sync run of one merchant's dataset loaded its slices.";
    SYNC_FAILED => "warehouse.sync.failed", AccountRead,
        "A warehouse sync run of one merchant's dataset failed (data.error, with the provider's words).";
    MONITOR_STOCKOUT => "monitor.stockout", RetailRead,
        "An item with recent sales reached zero sellable units (data.episode: started or ended).";
    MONITOR_LOW_COVER => "monitor.low_cover", RetailRead,
        "An item's sellable units cover fewer weeks of its recent sales than the tenant's threshold.";
    MONITOR_OUT_OF_BUDGET => "monitor.out_of_budget", AdsRead,
        "A campaign spent its whole daily budget several days running.";
    MONITOR_OUT_OF_BUDGET_BY_HOUR => "monitor.out_of_budget_by_hour", AdsRead,
        "A campaign spent its daily budget before a given hour of the day (the Marketing Stream's budget use).";
    MONITOR_SPEND_OFF_PLAN => "monitor.spend_off_plan", AdsRead,
        "Month-to-date advertising spend is off the month's plan (adBudget) by more than the tenant's share.";
    MONITOR_SPEND_PACE_BY_HOUR => "monitor.spend_pace_by_hour", AdsRead,
        "Month-to-date advertising spend at an hour of the day is off the month's plan to that hour by more than the tenant's share (the Marketing Stream's hours).";
    MONITOR_ANOMALY => "monitor.anomaly", AdsRead,
        "A metric (sales, spend, ACOS, CTR, conversion) left its own recent range, with enough samples to say so.";
    MONITOR_HOURLY_ANOMALY => "monitor.hourly_anomaly", AdsRead,
        "A campaign's hour (spend, cost per click, CTR) left the range of the same hour on the days before, with enough samples to say so (the Marketing Stream's hours).";
    ORDER_CHANGED => "order.changed", RetailRead,
        "The provider notified a change to an order (ORDER_CHANGE): its status and items in data.";
    OFFER_CHANGED => "offer.changed", RetailRead,
        "The provider notified a change to an item's offers (ANY_OFFER_CHANGED): the buy box and lowest prices in data.";
    INVENTORY_CHANGED => "inventory.changed", RetailRead,
        "The provider notified a change to an item's FBA stock (FBA_INVENTORY_AVAILABILITY_CHANGES): fulfillable units in data.";
    LISTING_STATUS_CHANGED => "listing.status_changed", RetailRead,
        "The provider notified a change to a listing's status (LISTINGS_ITEM_STATUS_CHANGE): data.status, such as BUYABLE.";
    ITEM_SALES_CHANGED => "item.sales_changed", RetailRead,
        "The provider notified an hour's sales (ITEM_SALES_EVENT_CHANGE): each item's ordered units and revenue in data.items, the hour in subject.hour.";
    WEBHOOK_DISABLED => "webhook.endpoint.disabled", AccountRead,
        "A webhook endpoint was disabled: its deliveries had failed for the disable period, or the access that registered it ended (data.reason).";
}

/// The type named `name`.
pub fn find(name: &str) -> Option<&'static EventType> {
    TYPES.iter().find(|t| t.name == name)
}

/// Whether `pattern` (a type's name, a family followed by `.*`, or `*`) names `name`.
pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some("") => true,
        Some(prefix) => name.starts_with(prefix) && prefix.ends_with('.'),
        None => pattern == name,
    }
}

/// Whether `pattern` names at least one known type (a type filter that can never match is a
/// mistake the caller should hear about).
pub fn known_pattern(pattern: &str) -> bool {
    TYPES.iter().any(|t| matches(pattern, t.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_patterns_match_families() {
        let mut names: Vec<_> = TYPES.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TYPES.len());
        assert!(matches("ads.*", "ads.write.committed"));
        assert!(matches("*", "report.done"));
        assert!(!matches("ads*", "adsx.write"));
        assert!(!matches("ads.write", "ads.write.committed"));
        assert!(known_pattern("monitor.*") && !known_pattern("nothing.*"));
        assert_eq!(find("report.fatal"), Some(&REPORT_FATAL));
    }

    /// The rows of the markdown table in `page` whose header starts with `head`: each row's
    /// cells, without their backticks.
    fn table_rows(page: &str, head: &str) -> Vec<Vec<String>> {
        page.lines()
            .skip_while(|l| !l.starts_with(head))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| {
                l.trim_matches('|')
                    .split(" | ")
                    .map(|c| c.trim().trim_matches('`').to_owned())
                    .collect()
            })
            .collect()
    }

    /// docs/events.md's table of types is this table: every type, in order, with its scope.
    #[test]
    fn the_reference_page_lists_every_type_with_its_scope() {
        let page =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/events.md"))
                .unwrap();
        let rows: Vec<(String, String)> = table_rows(&page, "| type | scope |")
            .into_iter()
            .map(|r| (r[0].clone(), r[1].clone()))
            .collect();
        let types: Vec<(String, String)> = TYPES
            .iter()
            .map(|t| (t.name.to_owned(), t.scope.as_str().to_owned()))
            .collect();
        assert_eq!(rows, types, "docs/events.md's type table");
    }
}
