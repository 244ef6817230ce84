//! Customer-side declarations (decisions §4, interface 2.5–2.9).

/// `contract_owners` (decisions §4).
#[macro_export]
macro_rules! contract_owners {
    ($($then:ident)::+ $(, $($with:tt)*)?) => { $($then)::+! { ($($($with)*)?)
        /// The companies customers are contracted with, each with the sub-brands it trades
        /// under. A user restricted to some contract owners sees only those.
        contract_owners {
            /// Name of the contract owner.
            name: required Text<1, 255>,
        }
        children {
            /// The brands it trades under, in order. A write sends the whole list: an element
            /// read from the service keeps its id when sent back in a patch; a new element gets
            /// one; an element left out is removed.
            sub_brands: list contract_owner_sub_brands,
        }
        rules {}
        extra_filters {}
    } };
}

/// `contract_owner_sub_brands`: owned by a contract owner, written only with it.
#[macro_export]
macro_rules! contract_owner_sub_brands {
    ($($then:ident)::+ $(, $($with:tt)*)?) => { $($then)::+! { ($($($with)*)?)
        /// A brand a contract owner trades under.
        contract_owner_sub_brands {
            /// Name of the sub-brand.
            name: required Text<1, 255>,
        }
        rules {}
        extra_filters {}
    } };
}
