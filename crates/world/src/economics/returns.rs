//! Customer returns as the FBA returns report lists them: each refund's units by what became
//! of them — back in sellable stock, damaged by the buyer, or damaged on the way (the
//! marketplace reimburses those). The P&L takes the landed cost of the sellable ones back.

use chrono::NaiveDateTime;

use crate::load::Loader;
use crate::model::Model;
use pp_warehouse::schema::Table;

/// The report's detailed dispositions, in the order a unit's draw picks them.
pub const DISPOSITIONS: [&str; 3] = ["SELLABLE", "CUSTOMER_DAMAGED", "CARRIER_DAMAGED"];

/// Units of one refund with one disposition.
pub struct Return {
    pub item: usize,
    pub at: NaiveDateTime,
    pub order: String,
    pub units: i64,
    pub disposition: &'static str,
}

impl Return {
    /// Writes its row of `spapi_fba_returns`.
    pub fn write(
        &self,
        model: &Model,
        table: &'static Table,
        out: &mut dyn Loader,
    ) -> Result<(), String> {
        let it = &model.items[self.item];
        let m = &model.merchants[it.merchant];
        let reason = match self.disposition {
            "SELLABLE" => "UNWANTED_ITEM",
            "CUSTOMER_DAMAGED" => "DAMAGED_BY_CUSTOMER",
            _ => "DAMAGED_BY_CARRIER",
        };
        let row = [
            m.id.into(),
            m.token.into(),
            self.at.date().to_string().into(),
            self.at.format("%Y-%m-%dT%H:%M:%SZ").to_string().into(),
            self.order.as_str().into(),
            it.sku.clone().into(),
            it.asin.as_str().into(),
            self.units.into(),
            self.disposition.into(),
            reason.into(),
        ];
        out.insert(table, &row)
    }
}
