//! The special-purpose address ranges a webhook is never sent to, as one table per family.
//!
//! Source: the IANA IPv4 Special-Purpose Address Registry and the IANA IPv6 Special-Purpose
//! Address Registry (RFC 6890 and the RFCs each row names), read on 2026-12-02: every block
//! whose "Globally Reachable" is False (the few globally reachable anycast blocks inside them,
//! such as 192.0.0.9/32, are refused with their parent: no webhook receiver lives there), plus
//! multicast, broadcast and the deprecated blocks a host may still answer on (192.88.99.0/24,
//! the 6to4 relay anycast; fec0::/10, site-local, RFC 3879). An IPv6 address outside 2000::/3
//! is not global unicast and is refused too.
//!
//! Addresses that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96,
//! NAT64 64:ff9b::/96, 6to4 2002::/16 and Teredo 2001::/32) are judged by the IPv4 address
//! inside them, so `::ffff:127.0.0.1`, `::10.0.0.1`, `2002:7f00:1::` and a Teredo address whose
//! client is 127.0.0.1 are refused like the address they carry.

use std::net::{Ipv4Addr, Ipv6Addr};

/// One IPv4 block: its first address, prefix length and what it is.
type V4Block = (u32, u8, &'static str);
/// One IPv6 block.
type V6Block = (u128, u8, &'static str);

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

/// The IPv4 blocks refused, most specific first (the first match names the reason).
const V4: &[V4Block] = &[
    (v4(169, 254, 169, 254), 32, "the cloud metadata address"),
    (v4(255, 255, 255, 255), 32, "the broadcast address"),
    (
        v4(0, 0, 0, 0),
        8,
        "the unspecified network (\"this network\", RFC 791)",
    ),
    (v4(10, 0, 0, 0), 8, "a private address (RFC 1918)"),
    (
        v4(100, 64, 0, 0),
        10,
        "a carrier-grade NAT address (RFC 6598)",
    ),
    (v4(127, 0, 0, 0), 8, "a loopback address (RFC 1122)"),
    (v4(169, 254, 0, 0), 16, "a link-local address (RFC 3927)"),
    (v4(172, 16, 0, 0), 12, "a private address (RFC 1918)"),
    (
        v4(192, 0, 0, 0),
        24,
        "an IETF protocol assignment (RFC 6890)",
    ),
    (
        v4(192, 0, 2, 0),
        24,
        "a documentation address (TEST-NET-1, RFC 5737)",
    ),
    (
        v4(192, 88, 99, 0),
        24,
        "the deprecated 6to4 relay anycast block (RFC 7526)",
    ),
    (v4(192, 168, 0, 0), 16, "a private address (RFC 1918)"),
    (v4(198, 18, 0, 0), 15, "a benchmarking address (RFC 2544)"),
    (
        v4(198, 51, 100, 0),
        24,
        "a documentation address (TEST-NET-2, RFC 5737)",
    ),
    (
        v4(203, 0, 113, 0),
        24,
        "a documentation address (TEST-NET-3, RFC 5737)",
    ),
    (v4(224, 0, 0, 0), 4, "a multicast address (RFC 5771)"),
    (v4(240, 0, 0, 0), 4, "a reserved address (RFC 1112)"),
];

const fn v6(s: [u16; 8]) -> u128 {
    let mut out = 0u128;
    let mut i = 0;
    while i < 8 {
        out = (out << 16) | s[i] as u128;
        i += 1;
    }
    out
}

/// The IPv6 blocks refused outright, most specific first. The blocks that carry an IPv4
/// address are not here: [`carried_v4`] reads them first.
const V6: &[V6Block] = &[
    (0, 128, "the unspecified address"),
    (1, 128, "a loopback address"),
    (
        v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0]),
        48,
        "a local-use NAT64 address (RFC 8215)",
    ),
    (
        v6([0x100, 0, 0, 0, 0, 0, 0, 0]),
        64,
        "a discard-only address (RFC 6666)",
    ),
    (
        v6([0x100, 0, 0, 1, 0, 0, 0, 0]),
        64,
        "a dummy IPv6 prefix (RFC 9780)",
    ),
    (
        v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]),
        32,
        "a documentation address (RFC 3849)",
    ),
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0]),
        23,
        "an IETF protocol assignment (RFC 2928)",
    ),
    (
        v6([0x3fff, 0, 0, 0, 0, 0, 0, 0]),
        20,
        "a documentation address (RFC 9637)",
    ),
    (
        v6([0x5f00, 0, 0, 0, 0, 0, 0, 0]),
        16,
        "a segment routing SID block (RFC 9602)",
    ),
    (
        v6([0xfc00, 0, 0, 0, 0, 0, 0, 0]),
        7,
        "a private (unique local) address (RFC 4193)",
    ),
    (
        v6([0xfe80, 0, 0, 0, 0, 0, 0, 0]),
        10,
        "a link-local address (RFC 4291)",
    ),
    (
        v6([0xfec0, 0, 0, 0, 0, 0, 0, 0]),
        10,
        "a site-local address (deprecated, RFC 3879)",
    ),
    (
        v6([0xff00, 0, 0, 0, 0, 0, 0, 0]),
        8,
        "a multicast address (RFC 4291)",
    ),
];

fn within(addr: u128, base: u128, len: u8, bits: u32) -> bool {
    let shift = bits - u32::from(len);
    if shift >= 128 {
        return true;
    }
    (addr >> shift) == (base >> shift)
}

/// Why an IPv4 address is refused, or `None` when it is globally reachable.
pub fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let a = u32::from(ip);
    V4.iter()
        .find(|(base, len, _)| within(u128::from(a), u128::from(*base), *len, 32))
        .map(|(_, _, why)| *why)
}

/// The IPv4 addresses an IPv6 address carries, by the form that carries them.
pub fn carried_v4(ip: Ipv6Addr) -> Option<(&'static str, Vec<Ipv4Addr>)> {
    let a = u128::from(ip);
    let s = ip.segments();
    let low = Ipv4Addr::from(a as u32);
    let pair = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if within(a, v6([0, 0, 0, 0, 0, 0xffff, 0, 0]), 96, 128) {
        Some(("IPv4-mapped", vec![low]))
    } else if within(a, 0, 96, 128) && a > 1 {
        Some(("IPv4-compatible", vec![low]))
    } else if within(a, v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0]), 96, 128) {
        Some(("NAT64", vec![low]))
    } else if s[0] == 0x2002 {
        Some(("6to4", vec![pair(s[1], s[2])]))
    } else if s[0] == 0x2001 && s[1] == 0 {
        // Teredo: the server's address in bits 32-63, the client's (inverted) in the last 32
        Some((
            "Teredo",
            vec![pair(s[2], s[3]), Ipv4Addr::from(!(a as u32))],
        ))
    } else {
        None
    }
}

/// Why an IPv6 address is refused, or `None` when it is globally reachable. An address that
/// carries an IPv4 address is refused when that one is.
pub fn v6_reason(ip: Ipv6Addr) -> Option<&'static str> {
    let a = u128::from(ip);
    if let Some(found) = V6.iter().take(2).find(|(base, _, _)| *base == a) {
        return Some(found.2);
    }
    if let Some((form, inside)) = carried_v4(ip) {
        if form == "IPv4-compatible" {
            return Some("a deprecated IPv4-compatible address (RFC 4291)");
        }
        return inside.into_iter().find_map(v4_reason);
    }
    if let Some((_, _, why)) = V6.iter().find(|(base, len, _)| within(a, *base, *len, 128)) {
        return Some(why);
    }
    if !within(a, v6([0x2000, 0, 0, 0, 0, 0, 0, 0]), 3, 128) {
        return Some("not a global unicast address (outside 2000::/3)");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4r(s: &str) -> Option<&'static str> {
        v4_reason(s.parse().unwrap())
    }
    fn v6r(s: &str) -> Option<&'static str> {
        v6_reason(s.parse().unwrap())
    }

    /// Issue 66, finding 3: the special-purpose ranges the old guard let through (192.0.2.0/24
    /// was the host's own address in the outside test, and the event was delivered there).
    #[test]
    fn the_ranges_the_old_guard_missed_are_refused() {
        for ip in [
            "192.0.2.1",
            "198.18.0.1",
            "198.19.255.254",
            "198.51.100.7",
            "203.0.113.9",
            "192.0.0.8",
            "192.88.99.1",
            "255.255.255.255",
        ] {
            assert!(v4r(ip).is_some(), "{ip}");
        }
        for ip in [
            "fec0::1",
            "::7f00:1",
            "::a00:1",
            "2002:7f00:1::",
            "2002:c000:201::1",
            "2001:db8::1",
            "3fff::1",
            "100::1",
            "64:ff9b:1::a00:1",
            "::1.2.3.4",
        ] {
            assert!(v6r(ip).is_some(), "{ip}");
        }
        // Teredo with client 127.0.0.1 (stored inverted: 0x80ff_fffe)
        assert!(v6r("2001:0:4136:e378:8000:63bf:80ff:fffe").is_some());
    }

    #[test]
    fn public_addresses_and_the_forms_carrying_them_pass() {
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "198.17.255.255",
            "198.20.0.0",
            "1.1.1.1",
        ] {
            assert_eq!(v4r(ip), None, "{ip}");
        }
        for ip in [
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert_eq!(v6r(ip), None, "{ip}");
        }
        // Teredo: server 65.54.227.120, client 8.8.8.8 inverted
        assert_eq!(v6r("2001:0:4136:e378:8000:63bf:f7f7:f7f7"), None);
    }

    #[test]
    fn carried_addresses_are_read_from_each_form() {
        let carried = |s: &str| {
            carried_v4(s.parse().unwrap()).map(|(form, v)| (form, v[v.len() - 1].to_string()))
        };
        assert_eq!(
            carried("::ffff:10.1.2.3"),
            Some(("IPv4-mapped", "10.1.2.3".into()))
        );
        assert_eq!(
            carried("::10.1.2.3"),
            Some(("IPv4-compatible", "10.1.2.3".into()))
        );
        assert_eq!(
            carried("64:ff9b::a01:203"),
            Some(("NAT64", "10.1.2.3".into()))
        );
        assert_eq!(
            carried("2002:a01:203::1"),
            Some(("6to4", "10.1.2.3".into()))
        );
        assert_eq!(
            carried("2001:0:4136:e378:8000:63bf:f5fe:fdfc"),
            Some(("Teredo", "10.1.2.3".into()))
        );
        assert_eq!(carried("2606:4700::1111"), None);
    }
}
