#include "connections_model.h"

#include <QBrush>
#include <QColor>

#include "retranslator.h"

namespace anthro::widgets {

void ConnectionsModel::setConnections(std::vector<CaptureConnection> connections) {
  const int old_rows = static_cast<int>(rows_.size());
  const int new_rows = static_cast<int>(connections.size());
  if (new_rows < old_rows) {
    beginResetModel();
    rows_ = std::move(connections);
    endResetModel();
    return;
  }
  if (new_rows > old_rows) beginInsertRows({}, old_rows, new_rows - 1);
  rows_ = std::move(connections);
  if (new_rows > old_rows) endInsertRows();
  if (old_rows > 0) emit dataChanged(index(0, 0), index(old_rows - 1, ColumnCount - 1));
}

int ConnectionsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ConnectionsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

QVariant count(std::uint64_t n) { return QVariant::fromValue<qulonglong>(n); }

}  // namespace

QVariant ConnectionsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const CaptureConnection& c = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::ForegroundRole && index.column() == Decryption && !connection_decrypted(c) && c.decryption != DecryptionState::Pending)
    return QBrush(QColor(0xD0, 0x3A, 0x3A));
  if (role == Qt::ToolTipRole && index.column() == Decryption) return QString::fromStdString(decryption_text(c));
  if (role == Qt::TextAlignmentRole)
    return QVariant::fromValue(Qt::AlignVCenter | (index.column() >= Frames || index.column() == Number ? Qt::AlignRight : Qt::AlignLeft));
  const TcpHealth& t = c.tcp;
  if (role == SortRole) {
    if (index.column() == ZeroWindows) return count(t.zero_window_events);
    if (index.column() == Gaps) return count(t.gaps);
    return data(index, Qt::DisplayRole);
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Number: return index.row() + 1;
    case Name: return QString::fromStdString(c.name);
    case Transport: return QString::fromLatin1(to_string(c.transport));
    case Profile: {
      if (!c.profile) return QString();
      const std::string_view name = anthro::profile(*c.profile).display_name;
      return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    }
    case Alpn: return QString::fromStdString(c.alpn);
    case Suite: return c.suite ? QString::fromLatin1(std::string(to_string(*c.suite)).c_str()) : QString();
    case TlsSuite: return QString::fromStdString(c.tls_suite.empty() ? std::string() : c.tls_suite + " " + c.tls_version);
    case Decryption:
      return c.decryption == DecryptionState::Pending ? tr("(loading)") : rendered(decryption_message(c));
    case Frames: return count(c.frames + c.dissected_frames);  // a connection speaks one of the two
    case HttpRequests: return c.http_requests ? count(c.http_requests) : QVariant();
    case Retransmissions: return count(t.retransmissions);
    case OutOfOrder: return count(t.out_of_order);
    case ZeroWindows:
      return t.zero_window_events ? QString("%1 (%2 ms)").arg(t.zero_window_events).arg(t.zero_window_ms, 0, 'f', 1)
                                  : QString("0");
    case Gaps: return t.gaps ? QString("%1 (%2 B)").arg(t.gaps).arg(t.gap_bytes) : QString("0");
    case BadChecksums: return count(t.bad_checksums);
  }
  return {};
}

QVariant ConnectionsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Number: return tr("#");
    case Name: return tr("Connection");
    case Transport: return tr("Transport");
    case Profile: return tr("Profile");
    case Alpn: return tr("ALPN");
    case Suite: return tr("anthro-v1 suite");
    case TlsSuite: return tr("TLS");
    case Decryption: return tr("Decryption");
    case Frames: return tr("Frames");
    case HttpRequests: return tr("HTTP requests");
    case Retransmissions: return tr("Retrans.");
    case OutOfOrder: return tr("Out of order");
    case ZeroWindows: return tr("Zero window");
    case Gaps: return tr("Gaps");
    case BadChecksums: return tr("Bad checksums");
  }
  return {};
}

}  // namespace anthro::widgets
