// One connection of a capture in detail: the anthro-v1 negotiation (offer and answer blobs, or
// why it was refused), the TLS handshake, the decryption status and every TCP health figure.
#pragma once

#include <QTreeWidget>

#include "capture/capture_decoder.h"

namespace anthro::widgets {

class ConnectionDetailView : public QTreeWidget {
  Q_OBJECT
 public:
  explicit ConnectionDetailView(QWidget* parent = nullptr);
  void showConnection(const CaptureConnection& connection);
  // The value shown for `field` under `section` ("offer", "answer", "TLS", "TCP"), or empty.
  QString value(const QString& section, const QString& field) const;

 private:
  CaptureConnection shown_;
  bool have_ = false;
  void rebuild();
};

}  // namespace anthro::widgets
