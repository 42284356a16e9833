//! Whose terminal size a tab's pty takes when several windows show it: the window that last
//! typed into the tab (docs/architecture.md, "Several windows"). Each window's size per tab is
//! kept; a window's resize reaches the pty only while it is the tab's typist (or nobody has
//! typed yet), and the first keystroke from another window brings that window's size along.
//!
//! Pure bookkeeping: it never sends anything itself, and it must never hold a keystroke back.

use kaiport_protocol::TabId;
use std::collections::HashMap;

/// One page (a browser tab on `kaiport serve`, the desktop window) attached to the hub.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageId(pub u64);

/// (cols, rows).
pub type Size = (u16, u16);

#[derive(Debug, Default)]
struct TabSizes {
    /// The page that last typed into the tab (or opened it); its size is the pty's.
    typist: Option<PageId>,
    /// The size last given to the engine.
    told: Option<Size>,
    /// Each page's own size of the tab.
    pages: HashMap<PageId, Size>,
}

/// Every tab's sizes, by page.
#[derive(Debug, Default)]
pub struct Sizes {
    tabs: HashMap<TabId, TabSizes>,
}

impl Sizes {
    /// `page` opened `tab` at `size`: it types first.
    pub fn opened(&mut self, page: PageId, tab: &str, size: Size) {
        let entry = self.tabs.entry(tab.to_owned()).or_default();
        entry.typist = Some(page);
        entry.told = Some(size);
        entry.pages.insert(page, size);
    }

    /// `page` drew `tab` at `size`: the size for the engine, when it is the pty's to take.
    pub fn resized(&mut self, page: PageId, tab: &str, size: Size) -> Option<Size> {
        let entry = self.tabs.entry(tab.to_owned()).or_default();
        entry.pages.insert(page, size);
        if entry.typist.is_some_and(|typist| typist != page) {
            return None;
        }
        entry.told = Some(size);
        Some(size)
    }

    /// `page` typed into `tab`: the size to give the engine before the keystrokes, when the
    /// pty had another page's.
    pub fn typed(&mut self, page: PageId, tab: &str) -> Option<Size> {
        let entry = self.tabs.entry(tab.to_owned()).or_default();
        entry.typist = Some(page);
        let size = *entry.pages.get(&page)?;
        if entry.told == Some(size) {
            return None;
        }
        entry.told = Some(size);
        Some(size)
    }

    /// `page` went away: its sizes are forgotten, and a tab it typed into last has no typist
    /// (the next page to resize or type takes it).
    pub fn left(&mut self, page: PageId) {
        for entry in self.tabs.values_mut() {
            entry.pages.remove(&page);
            if entry.typist == Some(page) {
                entry.typist = None;
            }
        }
    }

    pub fn closed(&mut self, tab: &str) {
        self.tabs.remove(tab);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: PageId = PageId(1);
    const PHONE: PageId = PageId(2);

    #[test]
    fn the_pty_takes_the_size_of_the_page_that_typed_last() {
        let mut sizes = Sizes::default();
        sizes.opened(BIG, "t", (180, 50));
        // The phone shows the tab too: its size waits.
        assert_eq!(sizes.resized(PHONE, "t", (44, 30)), None);
        assert_eq!(sizes.resized(BIG, "t", (170, 50)), Some((170, 50)));
        // The phone types: its size first; again, nothing more.
        assert_eq!(sizes.typed(PHONE, "t"), Some((44, 30)));
        assert_eq!(sizes.typed(PHONE, "t"), None);
        assert_eq!(sizes.resized(BIG, "t", (160, 50)), None);
        assert_eq!(sizes.resized(PHONE, "t", (44, 20)), Some((44, 20)));
        // Back to the big page.
        assert_eq!(sizes.typed(BIG, "t"), Some((160, 50)));
        // The typist leaves: the next page to resize takes the pty.
        sizes.left(BIG);
        assert_eq!(sizes.resized(PHONE, "t", (44, 21)), Some((44, 21)));
        // A page that never drew the tab types at whatever size the pty has.
        assert_eq!(sizes.typed(BIG, "t"), None);
        sizes.closed("t");
        assert_eq!(sizes.resized(PHONE, "t", (44, 22)), Some((44, 22)));
    }
}
