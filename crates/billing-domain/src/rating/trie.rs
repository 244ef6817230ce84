//! A compact 10-ary digit trie for longest-prefix match over date-versioned entries.
//!
//! Nodes are 8 bytes: a bitmap of the digits that have a child, the index of the first child
//! (children of a node are contiguous and ordered by digit, so the child for digit `d` is
//! `first_child + popcount(mask below d)`), and the head of the node's list of versions. Adding
//! a child moves the node's children block (at most 10 nodes) to a block one larger; freed
//! blocks are reused by size. Nothing is ever rebuilt: every change touches one path.
//!
//! Nodes and versions share one arena of 8-byte words, so a bulk build can put the versions of
//! a children block right after it: the version a walk resolves is then on the lines it has
//! just read or prefetched.

use super::model::{Day, DayRange};
use super::number::DialledNumber;
use super::prefetch::prefetch;

const NONE: u32 = u32::MAX;

/// `RANKS[m]` = number of set bits of the 10-bit mask `m`.
static RANKS: [u8; 1024] = {
    let mut table = [0u8; 1024];
    let mut mask = 0;
    while mask < 1024 {
        table[mask] = (mask as u32).count_ones() as u8;
        mask += 1;
    }
    table
};

/// A node in 8 bytes: the 10-bit digit mask, the first child's index and the head of the
/// version list, 27 bits each: indexes into an arena of at most 134 million words per source
/// (a node takes one, a version three: some 25 million dialstrings).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node(u64);

const INDEX_BITS: u32 = 27;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
/// The largest index a node can hold; the all-ones value stands for [`NONE`].
pub const MAX_INDEX: u32 = (INDEX_MASK - 1) as u32;

fn pack_index(index: u32) -> u64 {
    if index == NONE {
        INDEX_MASK
    } else {
        assert!(
            index <= MAX_INDEX,
            "the trie of one source outgrew {MAX_INDEX} words"
        );
        u64::from(index)
    }
}

fn unpack_index(bits: u32) -> u32 {
    if bits == INDEX_MASK as u32 {
        NONE
    } else {
        bits
    }
}

impl Node {
    const EMPTY: Node = Node(INDEX_MASK << 10 | INDEX_MASK << (10 + INDEX_BITS));

    #[inline]
    fn mask(&self) -> u16 {
        (self.0 & 0x3FF) as u16
    }

    #[inline]
    fn first_child(&self) -> u32 {
        unpack_index(self.first_child_bits())
    }

    /// The first child's index as stored: only meaningful when the mask is not empty.
    #[inline]
    fn first_child_bits(&self) -> u32 {
        ((self.0 >> 10) & INDEX_MASK) as u32
    }

    /// The versions head as stored: `INDEX_MASK` when there is none.
    #[inline]
    fn versions_bits(&self) -> u32 {
        ((self.0 >> (10 + INDEX_BITS)) & INDEX_MASK) as u32
    }

    #[inline]
    fn versions(&self) -> u32 {
        unpack_index(self.versions_bits())
    }

    fn set_mask(&mut self, mask: u16) {
        self.0 = (self.0 & !0x3FF) | u64::from(mask & 0x3FF);
    }

    fn set_first_child(&mut self, index: u32) {
        self.0 = (self.0 & !(INDEX_MASK << 10)) | pack_index(index) << 10;
    }

    fn set_versions(&mut self, index: u32) {
        self.0 =
            (self.0 & !(INDEX_MASK << (10 + INDEX_BITS))) | pack_index(index) << (10 + INDEX_BITS);
    }

    /// How many children sort before `digit`: a table lookup, since baseline x86-64 has no
    /// popcount instruction and this runs at every level of every lookup.
    #[inline]
    fn child_rank(&self, digit: u8) -> u32 {
        u32::from(RANKS[usize::from(self.mask() & ((1u16 << digit) - 1))])
    }

    fn has_child(&self, digit: u8) -> bool {
        self.mask() & (1u16 << digit) != 0
    }
}

/// One dated entry under a prefix. `value` is the caller's (a source charge group slot);
/// `record_id` breaks ties between entries in force on the same day (the larger wins after the
/// later start).
#[derive(Debug, Clone, Copy)]
pub struct Version {
    pub range: DayRange,
    pub record_id: i64,
    pub value: u32,
    next: u32,
}

/// Words a version takes in the arena (a node takes one).
const VERSION_WORDS: usize = 3;

impl Version {
    fn of(entry: &BulkEntry) -> Self {
        Self {
            range: entry.range,
            record_id: entry.record_id,
            value: entry.value,
            next: NONE,
        }
    }

    fn to_words(self) -> [u64; VERSION_WORDS] {
        [
            u64::from(self.range.start as u32) | u64::from(self.range.end as u32) << 32,
            self.record_id as u64,
            u64::from(self.value) | u64::from(self.next) << 32,
        ]
    }

    fn from_words(words: &[u64]) -> Self {
        let (dates, record_id, tail) = (words[0], words[1], words[2]);
        Self {
            range: DayRange {
                start: dates as u32 as Day,
                end: (dates >> 32) as u32 as Day,
            },
            record_id: record_id as i64,
            value: tail as u32,
            next: (tail >> 32) as u32,
        }
    }
}

/// One entry for [`DigitTrie::from_entries`].
#[derive(Debug, Clone, Copy)]
pub struct BulkEntry {
    pub digits: [u8; 15],
    pub length: u8,
    pub range: DayRange,
    pub record_id: i64,
    pub value: u32,
}

/// One longest-prefix walk in progress. Many walks advanced in turn ([`walk_all`]) keep many
/// independent memory loads in flight, so a batch costs far less than its lookups one by one.
///
/// The walk is software-pipelined: a step only prefetches the next node; the next step (a
/// whole round of other walks later, when the line has arrived) loads and looks at it. A
/// prefetch retires at once, where a load that misses holds the reorder buffer until its data
/// comes: with loads only about ten walks' misses overlapped, with prefetches all of them.
#[derive(Debug, Clone, Copy)]
pub struct Walk<'t> {
    trie: &'t DigitTrie,
    /// The index of the node at `depth`, prefetched by the previous step.
    at: u32,
    /// The number's digits, four bits each (see [`DialledNumber`]).
    digits: u64,
    length: u8,
    depth: u8,
    found: u8,
    day: Day,
    heads: [u32; 16],
    lengths: [u8; 16],
}

impl<'t> Walk<'t> {
    /// A walk for the digits of `number` on `day`.
    #[inline]
    pub fn new(trie: &'t DigitTrie, number: &DialledNumber, day: Day) -> Self {
        Self {
            trie,
            at: 0,
            digits: number.packed(),
            length: number.len() as u8,
            depth: 0,
            found: 0,
            day,
            heads: [NONE; 16],
            lengths: [0; 16],
        }
    }

    /// Notes the current node's versions, then loads the child for the next digit; false when
    /// the walk is over (no more digits, or no child for the next one).
    #[inline(always)]
    fn step(&mut self) -> bool {
        let node = Node(self.trie.words[self.at as usize]);
        let depth = usize::from(self.depth);
        // At most 15 prefixes have versions on one path: keys are 1..=15 digits (see insert).
        let found = usize::from(self.found) & 15;
        let versions = node.versions_bits();
        if versions != INDEX_MASK as u32 {
            self.heads[found] = versions;
            self.lengths[found] = depth as u8;
            self.found += 1;
        }
        if depth >= usize::from(self.length) {
            return false;
        }
        let digit = ((self.digits >> (4 * (depth & 15))) & 15) as u8;
        let mask = node.mask();
        if mask & (1u16 << digit) == 0 {
            return false;
        }
        let child = node.first_child_bits() + node.child_rank(digit);
        self.at = child;
        let next = self.trie.words.as_ptr().wrapping_add(child as usize);
        prefetch(next);
        if depth + 1 >= PREFETCH_FROM_DEPTH {
            // Deep levels are sparse and laid out depth first: the child's own children and
            // versions are usually in the next lines. Ask for them now, alongside the child.
            prefetch(next.wrapping_add(8));
            prefetch(next.wrapping_add(16));
        }
        self.depth += 1;
        true
    }

    /// The entry of the longest prefix in force on the walk's day, once the walk is over.
    pub fn resolve(&self) -> Option<(Version, usize)> {
        let mut found = usize::from(self.found);
        while found > 0 {
            found -= 1;
            if let Some(version) = self.trie.best_in_force(self.heads[found], self.day) {
                return Some((version, usize::from(self.lengths[found])));
            }
        }
        None
    }
}

/// The depth from which a walk prefetches the lines after each node it loads: above it the
/// trie is dense (its children are far apart) and small enough to stay cached.
const PREFETCH_FROM_DEPTH: usize = 4;

/// The most walks [`walk_all`] advances together.
pub const MAX_WALKS: usize = 128;

/// Advances every walk one level per round until all are done.
/// Finished walks drop out of the rotation, so each round costs only the walks still going.
pub fn walk_all(walks: &mut [Walk<'_>]) {
    let mut active = [0u8; MAX_WALKS];
    assert!(walks.len() <= MAX_WALKS, "at most {MAX_WALKS} walks");
    let mut count = walks.len();
    for (slot, index) in active.iter_mut().zip(0u8..).take(count) {
        *slot = index;
    }
    while count > 0 {
        let mut kept = 0;
        for position in 0..count {
            let index = usize::from(active[position]);
            if walks[index].step() {
                active[kept] = active[position];
                kept += 1;
            }
        }
        count = kept;
    }
}

/// A digit trie over one arena of 8-byte words: nodes take one word, versions three. A
/// prefix's versions are laid out right after the children block they belong to, so the
/// version a walk resolves sits on the page, often the line, of the last node it read.
#[derive(Debug)]
pub struct DigitTrie {
    words: Vec<u64>,
    /// Freed blocks by size in words: children blocks of 1..=10 nodes and versions.
    free_blocks: [Vec<u32>; 11],
    entries: usize,
    /// The most words the arena may hold ([`MAX_INDEX`] + 1 unless lowered for tests).
    limit: usize,
}

/// The arena of one trie would outgrow its limit: the change was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full {
    /// The limit, in 8-byte words.
    pub limit: usize,
}

/// The most words one [`DigitTrie::insert`] can add: a children block of up to ten nodes at
/// each of 15 levels, and a version.
const MAX_INSERT_WORDS: usize = 15 * 10 + VERSION_WORDS;

impl Default for DigitTrie {
    /// An empty trie: just the root.
    fn default() -> Self {
        Self {
            words: vec![Node::EMPTY.0],
            free_blocks: Default::default(),
            entries: 0,
            limit: MAX_INDEX as usize + 1,
        }
    }
}

impl DigitTrie {
    /// An empty trie whose arena may hold at most `limit` words (capped at [`MAX_INDEX`] + 1):
    /// tests reach the limit with a small one.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit: limit.clamp(1, MAX_INDEX as usize + 1),
            ..Self::default()
        }
    }

    /// The most words the arena may hold.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// True when one more [`Self::insert`] cannot be refused.
    pub fn has_room(&self) -> bool {
        self.has_room_for(1)
    }

    /// Whether `inserts` more inserts surely fit under the limit.
    pub fn has_room_for(&self, inserts: usize) -> bool {
        self.words
            .len()
            .saturating_add(inserts.saturating_mul(MAX_INSERT_WORDS))
            <= self.limit
    }

    /// Every entry whose value is `value`, with its digits, in one walk of the whole trie:
    /// what moving a source charge group's dialstrings to another source takes out.
    pub fn entries_with_value(&self, value: u32) -> Vec<(Vec<u8>, Version)> {
        let mut found = Vec::new();
        // (node, its digits, how many): no allocation per node.
        let mut stack = vec![(0u32, [0u8; 16], 0usize)];
        while let Some((index, digits, length)) = stack.pop() {
            let node = self.node(index);
            let mut link = node.versions();
            while link != NONE {
                let version = self.version(link);
                if version.value == value {
                    found.push((digits[..length].to_vec(), version));
                }
                link = version.next;
            }
            let mut rank = 0;
            for digit in 0..10u8 {
                if node.mask() & (1 << digit) == 0 {
                    continue;
                }
                // Keys are at most 15 digits: a deeper child cannot exist.
                if length < 15 {
                    let mut child = digits;
                    child[length] = digit;
                    stack.push((node.first_child() + rank, child, length + 1));
                }
                rank += 1;
            }
        }
        found
    }

    /// Words in use (nodes, versions and freed blocks kept for reuse).
    pub fn words(&self) -> usize {
        self.words.len()
    }

    pub fn len(&self) -> usize {
        self.entries
    }

    /// Bytes held by the trie's arrays (capacity, not just length).
    pub fn memory_bytes(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<u64>()
            + self
                .free_blocks
                .iter()
                .map(|b| b.capacity() * 4)
                .sum::<usize>()
    }

    fn node(&self, index: u32) -> Node {
        Node(self.words[index as usize])
    }

    /// Changes the node at `index` through `change`.
    fn edit_node(&mut self, index: u32, change: impl FnOnce(&mut Node)) {
        let mut node = self.node(index);
        change(&mut node);
        self.words[index as usize] = node.0;
    }

    fn version(&self, index: u32) -> Version {
        let start = index as usize;
        Version::from_words(&self.words[start..start + VERSION_WORDS])
    }

    fn set_version(&mut self, index: u32, version: Version) {
        let start = index as usize;
        self.words[start..start + VERSION_WORDS].copy_from_slice(&version.to_words());
    }

    fn allocate_block(&mut self, size: usize) -> u32 {
        if let Some(start) = self.free_blocks[size].pop() {
            return start;
        }
        let start = self.words.len() as u32;
        self.words.resize(self.words.len() + size, Node::EMPTY.0);
        start
    }

    fn free_block(&mut self, start: u32, size: usize) {
        if size > 0 {
            self.free_blocks[size].push(start);
        }
    }

    /// Puts `version` first in the list of the node at `node`, in a new slot.
    fn push_version(&mut self, node: u32, mut version: Version) {
        version.next = self.node(node).versions();
        let slot = self.allocate_block(VERSION_WORDS);
        self.set_version(slot, version);
        self.edit_node(node, |node| node.set_versions(slot));
    }

    /// The child of `node` for `digit`, created when missing.
    fn child_or_insert(&mut self, node: u32, digit: u8) -> u32 {
        let current = self.node(node);
        let rank = current.child_rank(digit);
        if current.has_child(digit) {
            return current.first_child() + rank;
        }
        let count = current.mask().count_ones() as usize;
        let block = self.allocate_block(count + 1);
        for index in 0..count {
            let target = block as usize + index + usize::from(index as u32 >= rank);
            self.words[target] = self.words[current.first_child() as usize + index];
        }
        self.words[(block + rank) as usize] = Node::EMPTY.0;
        self.free_block(current.first_child(), count);
        self.edit_node(node, |parent| {
            parent.set_mask(parent.mask() | (1u16 << digit));
            parent.set_first_child(block);
        });
        block + rank
    }

    /// Builds a trie from `entries`, laid out depth first: a node's children block is followed
    /// by its children's versions, then by its first child's block, so a walk down a sparse
    /// branch stays in a few cache lines. Later changes go through [`Self::insert`] and
    /// [`Self::remove`] as usual.
    ///
    /// `Err` (and nothing built) when the entries need more than `limit` words.
    pub fn from_entries(mut entries: Vec<BulkEntry>, limit: usize) -> Result<Self, Full> {
        debug_assert!(
            entries.iter().all(|e| (1..=15).contains(&e.length)),
            "a key is 1 to 15 digits"
        );
        entries.sort_unstable_by(|a, b| {
            a.digits[..usize::from(a.length)].cmp(&b.digits[..usize::from(b.length)])
        });
        let mut trie = Self::with_limit(limit);
        // Exactly the words the build takes: the root, one per distinct prefix, and the
        // versions. Sorted keys share their prefixes with the key before them.
        let mut nodes = 0usize;
        let mut previous: &[u8] = &[];
        for entry in &entries {
            let key = &entry.digits[..usize::from(entry.length)];
            let shared = key.iter().zip(previous).take_while(|(a, b)| a == b).count();
            nodes += key.len() - shared;
            previous = key;
        }
        let needed = 1 + nodes + entries.len() * VERSION_WORDS;
        if needed > trie.limit {
            return Err(Full { limit: trie.limit });
        }
        trie.words.reserve(needed);
        trie.build_below(0, &entries, 0);
        trie.words.shrink_to_fit();
        trie.entries = entries.len();
        Ok(trie)
    }

    /// Builds the children of `node` from `entries`, sorted, each longer than `depth`.
    fn build_below(&mut self, node: u32, entries: &[BulkEntry], depth: usize) {
        if entries.is_empty() {
            return;
        }
        // Per child digit: its entries (`from..to`), of which `from..own` end at the child.
        let mut groups: [(usize, usize, usize); 10] = [(0, 0, 0); 10];
        let mut mask = 0u16;
        let mut start = 0;
        while start < entries.len() {
            let digit = entries[start].digits[depth];
            let mut end = start + 1;
            while end < entries.len() && entries[end].digits[depth] == digit {
                end += 1;
            }
            let mut own = start;
            while own < end && usize::from(entries[own].length) == depth + 1 {
                own += 1;
            }
            groups[usize::from(digit)] = (start, own, end);
            mask |= 1 << digit;
            start = end;
        }
        let count = mask.count_ones() as usize;
        let block = self.allocate_block(count);
        self.edit_node(node, |parent| {
            parent.set_mask(mask);
            parent.set_first_child(block);
        });
        let children = (0..10u8).filter(|digit| mask & (1 << digit) != 0);
        for (child, digit) in (block..).zip(children.clone()) {
            let (from, own, _) = groups[usize::from(digit)];
            for entry in &entries[from..own] {
                self.push_version(child, Version::of(entry));
            }
        }
        for (child, digit) in (block..).zip(children) {
            let (_, own, to) = groups[usize::from(digit)];
            self.build_below(child, &entries[own..to], depth + 1);
        }
    }

    /// Adds an entry under `digits` (1 to 15 of them, each 0..=9). `Err` (and nothing
    /// changed) when the arena is within one insert's worth of words of its limit.
    pub fn insert(
        &mut self,
        digits: &[u8],
        range: DayRange,
        record_id: i64,
        value: u32,
    ) -> Result<(), Full> {
        debug_assert!(
            (1..=15).contains(&digits.len()) && digits.iter().all(|d| *d <= 9),
            "a key is 1 to 15 digits"
        );
        if !self.has_room() {
            return Err(Full { limit: self.limit });
        }
        let mut node = 0u32;
        for &digit in digits {
            node = self.child_or_insert(node, digit);
        }
        self.push_version(
            node,
            Version {
                range,
                record_id,
                value,
                next: NONE,
            },
        );
        self.entries += 1;
        Ok(())
    }

    /// The version of `record_id` under `digits`, if there is one.
    pub fn find(&self, digits: &[u8], record_id: i64) -> Option<Version> {
        let mut node = 0u32;
        for &digit in digits {
            let current = self.node(node);
            if !current.has_child(digit) {
                return None;
            }
            node = current.first_child() + current.child_rank(digit);
        }
        let mut link = self.node(node).versions();
        while link != NONE {
            let version = self.version(link);
            if version.record_id == record_id {
                return Some(version);
            }
            link = version.next;
        }
        None
    }

    /// Removes the entry of `record_id` under `digits`; prunes emptied nodes. False when absent.
    pub fn remove(&mut self, digits: &[u8], record_id: i64) -> bool {
        let mut path = [0u32; 16];
        let mut node = 0u32;
        for (depth, &digit) in digits.iter().enumerate() {
            let current = self.node(node);
            if !current.has_child(digit) {
                return false;
            }
            path[depth] = node;
            node = current.first_child() + current.child_rank(digit);
        }
        // Unlink the version from the node's list.
        let mut link = self.node(node).versions();
        let mut previous = NONE;
        let next = loop {
            if link == NONE {
                return false;
            }
            let version = self.version(link);
            if version.record_id == record_id {
                break version.next;
            }
            previous = link;
            link = version.next;
        };
        if previous == NONE {
            self.edit_node(node, |node| node.set_versions(next));
        } else {
            let mut before = self.version(previous);
            before.next = next;
            self.set_version(previous, before);
        }
        self.free_block(link, VERSION_WORDS);
        self.entries -= 1;
        // Prune nodes left with neither versions nor children, bottom up.
        for depth in (0..digits.len()).rev() {
            let parent = path[depth];
            let digit = digits[depth];
            let parent_node = self.node(parent);
            let child_node = self.node(parent_node.first_child() + parent_node.child_rank(digit));
            if child_node.versions() != NONE || child_node.mask() != 0 {
                break;
            }
            self.remove_child(parent, digit);
        }
        true
    }

    fn remove_child(&mut self, node: u32, digit: u8) {
        let current = self.node(node);
        let rank = current.child_rank(digit);
        let count = current.mask().count_ones() as usize;
        let block = if count > 1 {
            self.allocate_block(count - 1)
        } else {
            NONE
        };
        for index in 0..count {
            if index as u32 == rank {
                continue;
            }
            let target = block as usize + index - usize::from(index as u32 > rank);
            self.words[target] = self.words[current.first_child() as usize + index];
        }
        self.free_block(current.first_child(), count);
        self.edit_node(node, |parent| {
            parent.set_mask(parent.mask() & !(1u16 << digit));
            parent.set_first_child(block);
        });
    }

    /// The entry of the longest prefix of `digits` that has one in force on `day`: among the
    /// entries of one prefix in force that day, the latest start wins, then the larger record
    /// id. Returns the entry and the prefix length.
    #[inline]
    pub fn longest_match(&self, number: &DialledNumber, day: Day) -> Option<(Version, usize)> {
        let mut walk = Walk::new(self, number, day);
        while walk.step() {}
        walk.resolve()
    }

    fn best_in_force(&self, mut link: u32, day: Day) -> Option<Version> {
        let mut best: Option<Version> = None;
        while link != NONE {
            let version = self.version(link);
            if version.range.contains(day)
                && best.is_none_or(|b| {
                    (version.range.start, version.record_id) > (b.range.start, b.record_id)
                })
            {
                best = Some(version);
            }
            link = version.next;
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALWAYS: DayRange = DayRange {
        start: 0,
        end: Day::MAX,
    };

    fn digits(text: &str) -> Vec<u8> {
        text.bytes().map(|b| b - b'0').collect()
    }

    #[test]
    fn the_entries_of_one_value_are_found_whole_at_every_depth() {
        let mut trie = DigitTrie::default();
        let keys = ["4", "44", "4420", "123456789012345", "999999999999999", "5"];
        for (id, key) in (1..).zip(keys) {
            let value = if id % 2 == 0 { 7 } else { 3 };
            trie.insert(&digits(key), ALWAYS, id, value).expect("room");
        }
        let mut found: Vec<(Vec<u8>, i64)> = trie
            .entries_with_value(7)
            .into_iter()
            .map(|(key, version)| (key, version.record_id))
            .collect();
        found.sort();
        let expected = vec![
            (digits("123456789012345"), 4),
            (digits("44"), 2),
            (digits("5"), 6),
        ];
        assert_eq!(found, expected);
        assert!(trie.entries_with_value(9).is_empty());
    }

    #[test]
    fn a_full_arena_refuses_inserts_and_builds_without_changing() {
        let mut trie = DigitTrie::with_limit(400);
        let mut added = 0;
        let refused = loop {
            let key = digits(&format!("{:015}", added * 7_919));
            match trie.insert(&key, ALWAYS, added, 0) {
                Ok(()) => added += 1,
                Err(full) => break full,
            }
        };
        assert_eq!(refused, Full { limit: 400 });
        assert!(trie.words() <= 400);
        assert_eq!(
            trie.len(),
            added as usize,
            "the refused insert left nothing behind"
        );
        let entry = |id: i64| BulkEntry {
            digits: [id as u8 % 10; 15],
            length: 15,
            range: ALWAYS,
            record_id: id,
            value: 0,
        };
        // Ten keys of 15 digits: 1 root + 150 nodes + 30 version words.
        assert_eq!(
            DigitTrie::from_entries((0..10).map(entry).collect(), 180).unwrap_err(),
            Full { limit: 180 }
        );
        assert_eq!(
            DigitTrie::from_entries((0..10).map(entry).collect(), 181)
                .expect("fits exactly")
                .words(),
            181
        );
    }

    #[test]
    fn longest_prefix_wins_and_falls_back() {
        let mut trie = DigitTrie::default();
        trie.insert(&digits("44"), ALWAYS, 1, 10).expect("room");
        trie.insert(&digits("447"), ALWAYS, 2, 20).expect("room");
        trie.insert(
            &digits("4477"),
            DayRange {
                start: 100,
                end: 200,
            },
            3,
            30,
        )
        .expect("room");
        fn hit(trie: &DigitTrie, number: &str, day: Day) -> Option<(i64, usize)> {
            trie.longest_match(&DialledNumber::from_digits(&digits(number)), day)
                .map(|(v, len)| (v.record_id, len))
        }
        assert_eq!(hit(&trie, "447712345", 150), Some((3, 4)));
        assert_eq!(
            hit(&trie, "447712345", 201),
            Some((2, 3)),
            "4477 ended: fall back to 447"
        );
        assert_eq!(hit(&trie, "441234", 0), Some((1, 2)));
        assert_eq!(hit(&trie, "33", 0), None);
        assert!(trie.remove(&digits("447"), 2));
        assert!(!trie.remove(&digits("447"), 2), "already gone");
        assert_eq!(hit(&trie, "447812345", 0), Some((1, 2)));
        assert_eq!(trie.len(), 2);
    }

    #[test]
    fn removal_prunes_and_blocks_are_reused() {
        let mut trie = DigitTrie::default();
        for d in 0..10u8 {
            trie.insert(&[1, d, 5], ALWAYS, i64::from(d), 0)
                .expect("room");
        }
        let words_before = trie.words.len();
        for d in 0..10u8 {
            assert!(trie.remove(&[1, d, 5], i64::from(d)));
        }
        assert_eq!(trie.node(0).mask(), 0, "everything pruned");
        for d in 0..10u8 {
            trie.insert(&[1, d, 5], ALWAYS, i64::from(d), 0)
                .expect("room");
        }
        assert_eq!(trie.words.len(), words_before, "freed blocks were reused");
    }

    #[test]
    fn bulk_build_puts_versions_right_after_their_node_block() {
        let mut entries = Vec::new();
        for (id, text) in ["12", "13", "123"].iter().enumerate() {
            let mut packed = [0u8; 15];
            packed[..text.len()].copy_from_slice(&digits(text));
            entries.push(BulkEntry {
                digits: packed,
                length: text.len() as u8,
                range: ALWAYS,
                record_id: id as i64,
                value: 0,
            });
        }
        let trie = DigitTrie::from_entries(entries, usize::MAX).expect("fits");
        let one = trie.node(0).first_child();
        let block = trie.node(one).first_child();
        assert_eq!(trie.node(one).mask(), 0b1100, "children 2 and 3");
        // The block of "12" and "13" (two words), then their versions (three words each).
        assert_eq!(trie.node(block).versions(), block + 2);
        assert_eq!(
            trie.node(block + 1).versions(),
            block + 2 + VERSION_WORDS as u32
        );
        let twelve = trie.node(block);
        assert_eq!(
            trie.node(twelve.first_child()).versions(),
            twelve.first_child() + 1,
            "and so on down: \"123\" right after its one-node block"
        );
    }

    #[test]
    fn versions_round_trip_through_words() {
        let version = Version {
            range: DayRange {
                start: -3,
                end: Day::MAX,
            },
            record_id: i64::MIN + 7,
            value: u32::MAX - 1,
            next: 12,
        };
        let back = Version::from_words(&version.to_words());
        assert_eq!(
            (back.range, back.record_id, back.value, back.next),
            (
                version.range,
                version.record_id,
                version.value,
                version.next
            )
        );
    }

    #[test]
    fn nodes_pack_into_eight_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 8);
        let mut node = Node::EMPTY;
        assert_eq!(
            (node.mask(), node.first_child(), node.versions()),
            (0, NONE, NONE)
        );
        node.set_mask(0b10_0000_0001);
        node.set_first_child(MAX_INDEX);
        node.set_versions(7);
        assert_eq!(
            (node.mask(), node.first_child(), node.versions()),
            (0b10_0000_0001, MAX_INDEX, 7)
        );
        node.set_first_child(NONE);
        assert_eq!(
            (node.mask(), node.first_child(), node.versions()),
            (0b10_0000_0001, NONE, 7)
        );
    }

    #[test]
    fn bulk_build_answers_like_inserts() {
        let texts = [
            "44", "447", "4477", "4477", "33", "3312345", "1", "12", "99999",
        ];
        let mut inserted = DigitTrie::default();
        let mut entries = Vec::new();
        for (id, text) in texts.iter().enumerate() {
            let range = DayRange {
                start: id as Day,
                end: Day::MAX,
            };
            inserted
                .insert(&digits(text), range, id as i64, id as u32)
                .expect("room");
            let mut packed = [0u8; 15];
            packed[..text.len()].copy_from_slice(&digits(text));
            entries.push(BulkEntry {
                digits: packed,
                length: text.len() as u8,
                range,
                record_id: id as i64,
                value: id as u32,
            });
        }
        let built = DigitTrie::from_entries(entries, usize::MAX).expect("fits");
        for number in ["447712", "4471", "44", "331234567", "12", "999999", "5"] {
            for day in [0, 3, 10] {
                let a = inserted
                    .longest_match(&DialledNumber::from_digits(&digits(number)), day)
                    .map(|(v, l)| (v.record_id, l));
                let b = built
                    .longest_match(&DialledNumber::from_digits(&digits(number)), day)
                    .map(|(v, l)| (v.record_id, l));
                assert_eq!(a, b, "{number} on {day}");
            }
        }
        let mut built = built;
        assert!(built.remove(&digits("4477"), 3));
        built
            .insert(
                &digits("4478"),
                DayRange {
                    start: 0,
                    end: Day::MAX,
                },
                42,
                0,
            )
            .expect("room");
        assert_eq!(
            built
                .longest_match(&DialledNumber::from_digits(&digits("44781")), 0)
                .map(|(v, _)| v.record_id),
            Some(42)
        );
    }

    #[test]
    fn same_prefix_versions_pick_latest_start_then_id() {
        let mut trie = DigitTrie::default();
        trie.insert(&digits("12"), DayRange { start: 0, end: 50 }, 1, 0)
            .expect("room");
        trie.insert(&digits("12"), DayRange { start: 10, end: 50 }, 2, 0)
            .expect("room");
        trie.insert(&digits("12"), DayRange { start: 10, end: 60 }, 3, 0)
            .expect("room");
        assert_eq!(
            trie.longest_match(&DialledNumber::from_digits(&digits("123")), 20)
                .map(|(v, _)| v.record_id),
            Some(3)
        );
        assert_eq!(
            trie.longest_match(&DialledNumber::from_digits(&digits("123")), 5)
                .map(|(v, _)| v.record_id),
            Some(1)
        );
        assert_eq!(
            trie.longest_match(&DialledNumber::from_digits(&digits("123")), 55)
                .map(|(v, _)| v.record_id),
            Some(3)
        );
        assert!(
            trie.longest_match(&DialledNumber::from_digits(&digits("123")), 61)
                .is_none()
        );
    }
}
