-- Wireshark dissector for airtcp's encapsulation of scheme headers in its pcap traces
-- (docs/pcap.md, "Scheme headers"): IPv4 protocol 253 (RFC 3692 experimentation), a header
-- naming the scheme, the scheme's bytes, then the inner packets a coded frame carries.
--
--   tshark -X lua_script:docs/airtcp.lua -r out/run/pcap/n0-wifi0.pcap -Y airtcp
--   wireshark -X lua_script:docs/airtcp.lua out/run/pcap/n0-wifi0.pcap
--
-- (or copy it into Wireshark's personal plugins folder). Inner packets hold their IPv4 and TCP
-- or UDP headers only; their fields are shown here (airtcp.inner.*) rather than handed to
-- Wireshark's IP dissector, which would call a packet whose total length exceeds the bytes
-- present malformed.

local airtcp = Proto("airtcp", "airtcp scheme encapsulation")

local kinds = { [1] = "shim", [2] = "forwarding layer", [3] = "seam transport" }
local protocols = { [6] = "TCP", [17] = "UDP", [253] = "airtcp" }

local f = airtcp.fields
f.version = ProtoField.uint8("airtcp.version", "Version")
f.kind = ProtoField.uint8("airtcp.kind", "Kind", base.DEC, kinds)
f.name_length = ProtoField.uint8("airtcp.name_length", "Name length")
f.inner_count = ProtoField.uint8("airtcp.inner_count", "Inner packets")
f.bytes_length = ProtoField.uint16("airtcp.bytes_length", "Scheme bytes length")
f.flags = ProtoField.uint16("airtcp.flags", "Flags", base.HEX)
f.marked = ProtoField.bool("airtcp.flags.marked", "Congestion marked", 16, nil, 0x0001)
f.scheme = ProtoField.string("airtcp.scheme", "Scheme")
f.bytes = ProtoField.bytes("airtcp.bytes", "Scheme bytes")
f.inner = ProtoField.bytes("airtcp.inner", "Inner packet")
f.inner_length = ProtoField.uint16("airtcp.inner.length", "Total length")
f.inner_id = ProtoField.uint16("airtcp.inner.id", "Identification", base.HEX)
f.inner_src = ProtoField.ipv4("airtcp.inner.src", "Source")
f.inner_dst = ProtoField.ipv4("airtcp.inner.dst", "Destination")
f.inner_proto = ProtoField.uint8("airtcp.inner.proto", "Protocol", base.DEC, protocols)
f.inner_sport = ProtoField.uint16("airtcp.inner.srcport", "Source port")
f.inner_dport = ProtoField.uint16("airtcp.inner.dstport", "Destination port")
f.inner_seq = ProtoField.uint32("airtcp.inner.tcp.seq", "TCP sequence number")
f.inner_ack = ProtoField.uint32("airtcp.inner.tcp.ack", "TCP acknowledgement number")

local function inner_packet(buf, tree)
  local length = buf:len()
  if length < 20 then
    return
  end
  tree:add(f.inner_length, buf(2, 2))
  tree:add(f.inner_id, buf(4, 2))
  tree:add(f.inner_proto, buf(9, 1))
  tree:add(f.inner_src, buf(12, 4))
  tree:add(f.inner_dst, buf(16, 4))
  local header = buf(0, 1):bitfield(4, 4) * 4
  local protocol = buf(9, 1):uint()
  if (protocol == 6 or protocol == 17) and length >= header + 4 then
    tree:add(f.inner_sport, buf(header, 2))
    tree:add(f.inner_dport, buf(header + 2, 2))
  end
  if protocol == 6 and length >= header + 12 then
    tree:add(f.inner_seq, buf(header + 4, 4))
    tree:add(f.inner_ack, buf(header + 8, 4))
  end
end

function airtcp.dissector(buf, pinfo, tree)
  if buf:len() < 8 or buf(0, 1):uint() ~= 1 then
    return 0
  end
  local name_length = buf(2, 1):uint()
  local count = buf(3, 1):uint()
  local bytes_length = buf(4, 2):uint()
  local t = tree:add(airtcp, buf())
  t:add(f.version, buf(0, 1))
  t:add(f.kind, buf(1, 1))
  t:add(f.name_length, buf(2, 1))
  t:add(f.inner_count, buf(3, 1))
  t:add(f.bytes_length, buf(4, 2))
  local flags = t:add(f.flags, buf(6, 2))
  flags:add(f.marked, buf(6, 2))
  local at = 8
  local scheme = buf(at, name_length):string()
  t:add(f.scheme, buf(at, name_length))
  at = at + name_length
  if bytes_length > 0 then
    t:add(f.bytes, buf(at, bytes_length))
  end
  at = at + bytes_length
  for _ = 1, count do
    local size = buf(at, 2):uint()
    local sub = t:add(f.inner, buf(at + 2, size))
    inner_packet(buf(at + 2, size):tvb(), sub)
    at = at + 2 + size
  end
  pinfo.cols.protocol = "airtcp"
  local kind = kinds[buf(1, 1):uint()] or "?"
  pinfo.cols.info = string.format("%s (%s), %d inner packet%s", scheme, kind, count, count == 1 and "" or "s")
  return at
end

DissectorTable.get("ip.proto"):add(253, airtcp)
