#include "connection_detail_view.h"

#include <QHeaderView>

#include "retranslator.h"

namespace anthro::widgets {
namespace {

QTreeWidgetItem* add(QTreeWidgetItem* parent, const QString& field, const QString& value) {
  return new QTreeWidgetItem(parent, {field, value});
}

QString hex8(std::uint64_t v) { return QString("%1").arg(v, 16, 16, QChar('0')); }

// The suites a blob's aead bits name, as the suite column names them: "aes-256-gcm,
// chacha20-poly1305 (0x03)" (an offer may name both; an answer names the one chosen).
QString aead_text(std::uint8_t aead) {
  QStringList names;
  for (Suite suite : {Suite::Aes256Gcm, Suite::ChaCha20Poly1305})
    if (aead & static_cast<std::uint8_t>(suite)) names << QString::fromLatin1(std::string(to_string(suite)).c_str());
  if (aead & ~(kSuiteAes256Gcm | kSuiteChaCha20Poly1305)) names << QObject::tr("unknown bits");
  if (names.isEmpty()) names << QObject::tr("none");
  return names.join(", ") + QString(" (0x%1)").arg(aead, 2, 16, QChar('0'));
}

void add_blob(QTreeWidgetItem* section, const Blob& b) {
  add(section, "connection_token", hex8(b.connection_token));
  add(section, "max_streams", QString::number(b.max_streams));
  add(section, "default_max_tokens", QString::number(b.default_max_tokens));
  add(section, "flags", QString("0x%1").arg(b.flags, 2, 16, QChar('0')));
  add(section, "aead", aead_text(b.aead));
  add(section, "ring_buffer_kib", QString::number(b.ring_buffer_kib));
  add(section, "x25519_public", QString::fromStdString(to_hex(ByteView(b.x25519_public.data(), b.x25519_public.size()))));
}

}  // namespace

ConnectionDetailView::ConnectionDetailView(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(2);
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  setUniformRowHeights(true);
  (new Retranslator(this))->add([this] {
    setHeaderLabels({tr("Field"), tr("Value")});
    if (have_) rebuild();
  });
}

void ConnectionDetailView::showConnection(const CaptureConnection& connection) {
  shown_ = connection;
  have_ = true;
  rebuild();
}

void ConnectionDetailView::rebuild() {
  clear();
  const CaptureConnection& c = shown_;
  auto* top = new QTreeWidgetItem(this, {QString::fromStdString(c.name), QString::fromLatin1(to_string(c.transport))});
  add(top, tr("decryption"), QString::fromStdString(decryption_text(c)));
  if (c.profile) {
    const std::string_view name = anthro::profile(*c.profile).display_name;
    add(top, tr("profile"), QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
  }
  // A profile with its own dissector has no anthro-v1 frames to open: its count instead of "0 (0 opened)".
  if (c.profile && anthro::profile(*c.profile).dissect) add(top, tr("frames"), QString::number(c.dissected_frames));
  else add(top, tr("frames"), tr("%1 (%2 opened)").arg(c.frames).arg(c.frames_opened));
  if (!c.tunnel.empty()) {  // a forward proxy's CONNECT: what the rest of the connection carries is the tunnel's
    auto* tunnel = new QTreeWidgetItem(this, {tr("proxy tunnel"), QString::fromStdString(c.tunnel)});
    add(tunnel, tr("answer"), QString::fromStdString(c.tunnel_status));
    if (c.tunnel_ms) add(tunnel, tr("round trip"), tr("%1 ms").arg(*c.tunnel_ms, 0, 'f', 2));
  }
  if (c.offer || c.answer || c.negotiation_refusal) {
    auto* negotiation = new QTreeWidgetItem(this, {tr("negotiation"), c.suite ? QString::fromLatin1(std::string(to_string(*c.suite)).c_str()) : QString()});
    if (c.negotiation_refusal) add(negotiation, tr("refused"), QString::fromLatin1(to_string(c.negotiation_refusal->reason)));
    if (c.offer) add_blob(new QTreeWidgetItem(negotiation, {"offer", tr("client → server")}), *c.offer);
    if (c.answer) add_blob(new QTreeWidgetItem(negotiation, {"answer", tr("server → client")}), *c.answer);
  }
  if (c.http_requests || !c.http_error.empty() || c.transport == CaptureTransport::Http) {
    auto* http = new QTreeWidgetItem(this, {"HTTP", QString()});
    add(http, tr("requests"), QString::number(c.http_requests));
    add(http, tr("SSE events"), QString::number(c.sse_events));
    if (!c.http_error.empty()) add(http, tr("not read further"), QString::fromStdString(c.http_error));
  }
  if (!c.tls_version.empty() || c.transport == CaptureTransport::Tls) {
    auto* tls = new QTreeWidgetItem(this, {"TLS", QString::fromStdString(c.tls_version)});
    add(tls, "cipher_suite", QString::fromStdString(c.tls_suite));
    add(tls, "alpn", QString::fromStdString(c.alpn));
    add(tls, "client_random", QString::fromStdString(to_hex(c.tls_client_random)));
  }
  const TcpHealth& t = c.tcp;
  auto* tcp = new QTreeWidgetItem(this, {"TCP", QString()});
  add(tcp, tr("retransmissions"), QString::number(t.retransmissions));
  add(tcp, tr("out of order"), QString::number(t.out_of_order));
  add(tcp, tr("gaps"), tr("%1 (%2 bytes)").arg(t.gaps).arg(t.gap_bytes));
  add(tcp, tr("zero window"), tr("%1 (%2 ms)").arg(t.zero_window_events).arg(t.zero_window_ms, 0, 'f', 1));
  add(tcp, tr("window full"), QString::number(t.window_full_events));
  add(tcp, tr("duplicate ACKs"), QString::number(t.duplicate_acks));
  add(tcp, tr("keep-alives"), QString::number(t.keepalives));
  add(tcp, tr("bad checksums"), QString::number(t.bad_checksums));
  add(tcp, tr("closed"), (t.rst ? QStringLiteral("RST ") : QString()) + (t.fin_client ? QStringLiteral("FIN(client) ") : QString()) +
                             (t.fin_server ? QStringLiteral("FIN(server)") : QString()));
  expandAll();
}

QString ConnectionDetailView::value(const QString& section, const QString& field) const {
  for (int i = 0; i < topLevelItemCount(); ++i) {
    QTreeWidgetItem* top = topLevelItem(i);
    QList<QTreeWidgetItem*> sections = {top};
    for (int k = 0; k < top->childCount(); ++k) sections << top->child(k);
    for (QTreeWidgetItem* s : sections) {
      if (s->text(0) != section) continue;
      for (int k = 0; k < s->childCount(); ++k)
        if (s->child(k)->text(0) == field) return s->child(k)->text(1);
    }
  }
  return {};
}

}  // namespace anthro::widgets
