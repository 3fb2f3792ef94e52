"""Paper 001: Seferoglu & Markopoulou, "Network coding-aware queue management for TCP flows over
coded wireless networks", IEEE/ACM ToN 22(4), 2014: NCAQM over COPE and BFLY (docs/ncaqm.md).

The reproduction (`airtcp reproduce 001`) is not registered yet; what it is built from so far:

- `grid`: §VI's random grid, generated per seed (nodes in cells, the cell rule's random relays,
  Poisson flow arrivals), as a scenario.
- The settings of §VI-A and the TCP+noNC baseline: `scenarios/001_ncaqm/`.
- The NUM with coding and its distributed solution: `airtcp.models.coding_num`,
  `airtcp.models.coding_num_iteration`; Appendix A's figures (`num`).
"""
