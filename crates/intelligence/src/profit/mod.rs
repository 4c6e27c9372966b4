//! Profit (docs/profit.md): a P&L's lines (`lines`), the warehouse reads it is made of
//! (`read`), and its assembly with costs, rates and estimates (`book`). The engines that
//! answer with it are `engines::profit` (`INS-PROFIT-01`), `engines::profit_bridge` and
//! `engines::payout`; `daily` is `/v1/profit`'s read.

pub mod book;
pub mod daily;
pub mod lines;
pub mod read;
