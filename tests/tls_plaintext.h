// A capture's decrypted application bytes two ways, for tests that hold the workbench's
// decoder to tshark's: ours per direction, tshark's (`data.data`) per sender port.
#pragma once

#include <QProcess>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

#include "capture/capture_decoder.h"
#include "capture/capture_file.h"
#include "capture/packet.h"
#include "crypto/keylog.h"
#include "vectors.h"

namespace anthro::test {

// Each direction's application bytes as our decoder sees them (decrypted for TLS); the
// connections as they ended into `ended` when given.
inline std::map<Direction, std::string> decoded_plaintext(const std::string& pcap, const std::string& keylog,
                                                         std::vector<CaptureConnection>* ended = nullptr) {
  KeyRing ring;
  ring.add(parse_keylog(read_file(keylog), keylog));
  std::map<Direction, std::string> out;
  CaptureEvents events;
  events.on_plaintext = [&](const CaptureConnection&, Direction d, ByteView b, double) { out[d] += as_text(b); };
  if (ended) events.on_connection_end = [ended](const CaptureConnection& c) { ended->push_back(c); };
  CaptureDecoder decoder(ring, events);
  auto reader = CaptureReader::open(pcap);
  if (!reader) qFatal("%s", reader.error().detail.c_str());
  while (auto packet = (*reader)->next())
    if (auto seg = parse_tcp(*packet); seg.ok() && *seg) decoder.feed(**seg);
  decoder.finish();
  return out;
}

// The same bytes as tshark decrypts them (its `data.data` field), split by the sender's port.
// `disabled`: protocols whose dissectors would take the bytes first (e.g. http2).
inline std::map<std::string, std::string> tshark_plaintext(const std::string& pcap, const std::string& keylog,
                                                           const QStringList& disabled = {}) {
  QStringList args{"-r", QString::fromStdString(pcap), "-o", QString::fromStdString("tls.keylog_file:" + keylog),
                   "-o", "tcp.reassemble_out_of_order:TRUE"};
  for (const QString& protocol : disabled) args << "--disable-protocol" << protocol;
  args << QStringList{"-T", "fields", "-e", "tcp.srcport", "-e", "data.data"};
  QProcess p;
  p.start("tshark", args);
  p.waitForFinished(60000);
  std::map<std::string, std::string> out;
  for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
    QList<QByteArray> fields = line.split('\t');
    if (fields.size() < 2 || fields[1].isEmpty()) continue;
    for (const QByteArray& hex : fields[1].split(',')) out[fields[0].toStdString()] += QByteArray::fromHex(hex).toStdString();
  }
  return out;
}

// Empty when tshark read our bytes: the server's from `server_port`, the client's from every
// other port; else which side differs.
inline std::string tshark_differs(std::map<std::string, std::string>& theirs, std::map<Direction, std::string>& ours,
                                  const std::string& server_port) {
  if (theirs[server_port] != ours[Direction::ServerToClient]) return "server bytes differ from tshark's";
  for (auto& [port, bytes] : theirs)
    if (port != server_port && bytes != ours[Direction::ClientToServer]) return "client bytes differ from tshark's";
  return {};
}

}  // namespace anthro::test
