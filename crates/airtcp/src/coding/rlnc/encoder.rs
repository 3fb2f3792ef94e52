//! The block encoder: incremental packets as sources arrive, repair packets on request
//! (the parent module has the model and the choices).

use super::*;

/// The encoder of one block at an edge point (source side of the NC layer).
#[derive(Debug, Clone)]
pub struct BlockEncoder {
    mode: PayloadMode,
    block_id: u64,
    block_size: usize,
    /// `symbols[j]` = length prefix ++ bytes of source `eta_{j+1}`, for `j < pushed`. Entries at
    /// and beyond `pushed` are stale buffers kept for their capacity.
    symbols: Vec<Vec<u8>>,
    pushed: usize,
    /// Longest symbol among the first `pushed` sources: the length of the next coded payload.
    longest_symbol: usize,
    repairs_sent: u32,
}

impl BlockEncoder {
    /// An empty encoder for block `block_id` of `block_size` (= `H`) sources. Panics unless
    /// `1 <= block_size <= MAX_BLOCK_SIZE`.
    pub fn new(mode: PayloadMode, block_id: u64, block_size: usize) -> Self {
        let mut encoder = BlockEncoder {
            mode,
            block_id,
            block_size: 0,
            symbols: Vec::new(),
            pushed: 0,
            longest_symbol: 0,
            repairs_sent: 0,
        };
        encoder.reset(block_id, block_size);
        encoder
    }

    /// Starts a new block, keeping the buffers of the old one. Panics unless
    /// `1 <= block_size <= MAX_BLOCK_SIZE`.
    pub fn reset(&mut self, block_id: u64, block_size: usize) {
        assert_block_size(block_size);
        self.block_id = block_id;
        self.block_size = block_size;
        self.pushed = 0;
        self.longest_symbol = 0;
        self.repairs_sent = 0;
    }

    /// The block id.
    pub fn block_id(&self) -> u64 {
        self.block_id
    }

    /// `H`.
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Source packets pushed so far (`k` of the last incremental packet).
    pub fn sources_pushed(&self) -> usize {
        self.pushed
    }

    /// True once all `H` sources are in (repairs then combine the whole block).
    pub fn is_full(&self) -> bool {
        self.pushed == self.block_size
    }

    /// Repair packets produced for this block so far.
    pub fn repairs_sent(&self) -> u32 {
        self.repairs_sent
    }

    /// Adds source packet `eta_k` (`k = sources_pushed() + 1`) and writes the incremental coded
    /// packet `a_k = sum_{j<=k} alpha_{k,j} eta_j` into `out`, reusing `out`'s buffers.
    /// `alpha_{k,k}` is non-zero. In [`PayloadMode::CoefficientsOnly`] `payload` is ignored.
    pub fn push_source(
        &mut self,
        payload: &[u8],
        rng: &mut Rng,
        out: &mut CodedPacket,
    ) -> Result<(), EncodeError> {
        if self.pushed == self.block_size {
            return Err(EncodeError::BlockFull {
                block_size: self.block_size,
            });
        }
        if self.mode == PayloadMode::Bytes {
            if payload.len() > MAX_SOURCE_LEN {
                return Err(EncodeError::PayloadTooLong { len: payload.len() });
            }
            if self.symbols.len() == self.pushed {
                self.symbols.push(Vec::new());
            }
            let symbol = &mut self.symbols[self.pushed];
            symbol.clear();
            symbol.extend_from_slice(&(payload.len() as u16).to_be_bytes());
            symbol.extend_from_slice(payload);
            self.longest_symbol = self.longest_symbol.max(symbol.len());
        }
        self.pushed += 1;
        let k = self.pushed;

        let coefficients = &mut out.header.coefficients;
        coefficients.clear();
        let mut draw = CoefficientDraw::new(rng);
        coefficients.extend((1..k).map(|_| draw.any()));
        coefficients.push(draw.nonzero());

        out.header.block_id = self.block_id;
        out.header.packet_id = k as u32;
        out.header.block_size = self.block_size as u16;
        self.combine(&out.header.coefficients, &mut out.payload);
        Ok(())
    }

    /// Writes a repair packet into `out`: all sources pushed so far (the whole block once
    /// [`is_full`](Self::is_full)) with uniformly random coefficients, not all zero. Call it
    /// `missing` times to answer a [`RepairRequest`]; each call draws fresh coefficients.
    pub fn repair(&mut self, rng: &mut Rng, out: &mut CodedPacket) -> Result<(), EncodeError> {
        if self.pushed == 0 {
            return Err(EncodeError::NoSources);
        }
        let coefficients = &mut out.header.coefficients;
        let mut draw = CoefficientDraw::new(rng);
        loop {
            coefficients.clear();
            coefficients.extend((0..self.pushed).map(|_| draw.any()));
            // An all-zero vector carries nothing (probability 256^-k); draw again.
            if coefficients.iter().any(|&c| c != 0) {
                break;
            }
        }
        self.repairs_sent += 1;
        out.header.block_id = self.block_id;
        out.header.packet_id = (self.block_size as u32).saturating_add(self.repairs_sent);
        out.header.block_size = self.block_size as u16;
        self.combine(&out.header.coefficients, &mut out.payload);
        Ok(())
    }

    /// `payload = sum_j coefficients[j] * symbol_j` (empty in coefficients-only mode).
    fn combine(&self, coefficients: &[u8], payload: &mut Vec<u8>) {
        payload.clear();
        if self.mode == PayloadMode::CoefficientsOnly {
            return;
        }
        payload.resize(self.longest_symbol, 0);
        for (symbol, &c) in self.symbols.iter().zip(coefficients) {
            gf256::mul_acc(&mut payload[..symbol.len()], symbol, c);
        }
    }
}
