//! What a world is made from: a seed, a scale, the "today" it is anchored to and a fleet. The
//! merchants are fixed so that every world has the cases the product must handle (one merchant
//! token in two marketplaces, a marketplace without brand analytics, a vendor with DSP); a
//! fleet adds that many tiny sellers after them (load tests of many tenants).

use std::collections::BTreeMap;
use std::sync::Mutex;

use chrono::{Duration, NaiveDate};

/// How big a world is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Unit tests: three items per brand, under a second.
    Tiny,
    /// The dev server's default: twelve items per brand.
    Small,
    /// Benchmarks: 400 items per brand, 2,000 items in all.
    Large,
}

impl Scale {
    /// Parses `tiny`, `small` or `large`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "tiny" => Ok(Scale::Tiny),
            "small" => Ok(Scale::Small),
            "large" => Ok(Scale::Large),
            other => Err(format!("unknown scale '{other}': use tiny, small or large")),
        }
    }

    /// Items per brand and merchant.
    pub fn items_per_brand(self) -> usize {
        match self {
            Scale::Tiny => 3,
            Scale::Small => 12,
            Scale::Large => 400,
        }
    }
}

/// Days of daily facts in every world: three years and a day.
pub const DAYS: i64 = 1_096;

/// Days a day's advertising attribution keeps growing: the provider restates a day's
/// attributed conversions and sales for this long after it, as late attribution arrives.
pub const ATTRIBUTION_DAYS: i64 = 14;

/// A world's inputs.
#[derive(Debug, Clone, Copy)]
pub struct WorldSpec {
    /// Random seed.
    pub seed: u64,
    /// Size.
    pub scale: Scale,
    /// The anchor: data runs through the day before.
    pub today: NaiveDate,
    /// The first data day. Everything the world draws (items, events, every day's facts) is
    /// counted from here, so the same origin and a later `today` is the same world moved
    /// forward: the days it had stay as they were (but for advertising days still inside the
    /// attribution window), and new days follow.
    pub origin: NaiveDate,
    /// Tiny sellers after the fixed merchants ([`fleet_merchant`]); 0 in every world but a
    /// load test's.
    pub fleet: usize,
}

impl WorldSpec {
    /// A world made at `today`, with [`DAYS`] days of facts.
    pub fn new(seed: u64, scale: Scale, today: NaiveDate) -> Self {
        Self {
            seed,
            scale,
            today,
            origin: today - Duration::days(DAYS),
            fleet: 0,
        }
    }

    /// The same world with `fleet` tiny sellers after the fixed merchants.
    pub fn with_fleet(self, fleet: usize) -> Self {
        Self { fleet, ..self }
    }

    /// The world's merchants: [`MERCHANTS`], then the fleet's.
    pub fn merchants(&self) -> &'static [MerchantDef] {
        if self.fleet == 0 {
            return MERCHANTS;
        }
        // made once per fleet size in a process, and kept (their names are `&'static str`,
        // as the fixed merchants' are)
        static MADE: Mutex<BTreeMap<usize, &'static [MerchantDef]>> = Mutex::new(BTreeMap::new());
        let mut made = MADE.lock().unwrap_or_else(|p| p.into_inner());
        made.entry(self.fleet).or_insert_with(|| {
            let all: Vec<MerchantDef> = MERCHANTS
                .iter()
                .map(MerchantDef::clone)
                .chain((1..=self.fleet).map(fleet_merchant))
                .collect();
            Vec::leak(all)
        })
    }

    /// The same world `days` days later.
    pub fn advanced(&self, days: i64) -> Self {
        Self {
            today: self.today + Duration::days(days),
            ..*self
        }
    }

    /// The last complete data day.
    pub fn last_day(&self) -> NaiveDate {
        self.today - Duration::days(1)
    }

    /// The first data day.
    pub fn first_day(&self) -> NaiveDate {
        self.origin
    }

    /// Days of facts: from the origin through the last complete day.
    pub fn days(&self) -> i64 {
        (self.today - self.origin).num_days()
    }

    /// The share of day `date`'s final attributed conversions and sales the provider reports
    /// as of this world's today: 70% the next day, growing evenly to all of it once
    /// [`ATTRIBUTION_DAYS`] have passed. The final values are the world's ground truth.
    pub fn attributed_share(&self, date: NaiveDate) -> f64 {
        let age = (self.today - date).num_days();
        if age >= ATTRIBUTION_DAYS {
            1.0
        } else {
            let age = age.max(1) as f64;
            1.0 - 0.3 * (ATTRIBUTION_DAYS as f64 - age) / (ATTRIBUTION_DAYS as f64 - 1.0)
        }
    }
}

/// A merchant every world has.
#[derive(Clone)]
pub struct MerchantDef {
    pub id: i64,
    pub token: &'static str,
    pub name: &'static str,
    pub vendor: bool,
    pub country: &'static str,
    pub marketplace_id: &'static str,
    pub currency: &'static str,
    pub timezone: &'static str,
    /// Brand slugs sold here.
    pub brands: &'static [&'static str],
    /// Whether brand analytics (search query performance) is available.
    pub brand_analytics: bool,
}

/// The brands: slug, name, product nouns for titles and keywords, sub-brand labels.
pub const BRANDS: &[(&str, &str, &[&str], &[&str])] = &[
    (
        "northwind",
        "Northwind",
        &["water bottle", "lunch box", "travel mug", "thermos"],
        &["Northwind Trail", "Northwind Home"],
    ),
    (
        "trailhead",
        "Trailhead",
        &["hiking socks", "trail cap", "gaiters"],
        &["Trailhead Core"],
    ),
    (
        "sierra-casa",
        "Sierra Casa",
        &["cazuela", "molcajete", "comal"],
        &["Sierra Casa Cocina"],
    ),
    (
        "acme-kitchen",
        "Acme Kitchen",
        &["chef knife", "cutting board", "knife sharpener"],
        &["Acme Pro", "Acme Basics"],
    ),
];

/// The merchants of every world.
pub const MERCHANTS: &[MerchantDef] = &[
    MerchantDef {
        id: 1,
        token: "A2DEMOSELLER01",
        name: "Northwind Goods US",
        vendor: false,
        country: "US",
        marketplace_id: "ATVPDKIKX0DER",
        currency: "USD",
        timezone: "America/Los_Angeles",
        brands: &["northwind", "trailhead"],
        brand_analytics: true,
    },
    MerchantDef {
        id: 2,
        token: "A2DEMOSELLER01",
        name: "Northwind Goods CA",
        vendor: false,
        country: "CA",
        marketplace_id: "A2EUQ1WTGCTBG2",
        currency: "CAD",
        timezone: "America/Los_Angeles",
        brands: &["northwind"],
        brand_analytics: true,
    },
    MerchantDef {
        id: 3,
        token: "A1DEMOSELLERMX",
        name: "Sierra Casa MX",
        vendor: false,
        country: "MX",
        marketplace_id: "A1AM78C64UM0Y8",
        currency: "MXN",
        // the Ads API's profile table gives Mexico the Pacific time zone
        timezone: "America/Los_Angeles",
        brands: &["sierra-casa"],
        brand_analytics: false,
    },
    MerchantDef {
        id: 4,
        token: "ENTITY2DEMOVENDOR",
        name: "Acme Kitchen Vendor US",
        vendor: true,
        country: "US",
        marketplace_id: "ATVPDKIKX0DER",
        currency: "USD",
        timezone: "America/Los_Angeles",
        brands: &["acme-kitchen"],
        brand_analytics: false,
    },
];

/// The `n`th (from 1) seller of a fleet: its own selling partner in the US marketplace, one
/// brand (the fleet's brands in turn), no brand analytics, an advertising profile.
pub fn fleet_merchant(n: usize) -> MerchantDef {
    const FLEET_BRANDS: &[&[&str]] = &[&["trailhead"], &["acme-kitchen"], &["northwind"]];
    let leak = |s: String| -> &'static str { String::leak(s) };
    MerchantDef {
        id: 100 + n as i64,
        token: leak(format!("AFLEET{n:06}")),
        name: leak(format!("Fleet Seller {n}")),
        vendor: false,
        country: "US",
        marketplace_id: "ATVPDKIKX0DER",
        currency: "USD",
        timezone: "America/Los_Angeles",
        brands: FLEET_BRANDS[n % FLEET_BRANDS.len()],
        brand_analytics: false,
    }
}
