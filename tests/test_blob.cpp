// Spec §2 against the vectors: blob fields both ways, and every negative with its reason.
#include <QFloat16>
#include <QObject>
#include <QTest>

#include "protocol/blob.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

namespace {

Blob blob_from_fields(const nlohmann::json& f) {
  Blob b;
  b.blob_version = f["blob_version"];
  b.role = f["role"];
  b.max_streams = f["max_streams"];
  b.default_max_tokens = f["default_max_tokens"];
  b.flags = f["flags"];
  b.aead = f["aead"];
  b.ring_buffer_kib = f["ring_buffer_kib"];
  b.connection_token = *parse_token_hex(f["connection_token"].get<std::string>());
  b.x25519_public = key32(f["x25519_public"]);
  b.random = key32(f["random"]);
  return b;
}

}  // namespace

class TestBlob : public QObject {
  Q_OBJECT
 private slots:
  void encodeAndDecodeBothBlobs() {
    const auto& v = vectors()["blobs"];
    for (const char* which : {"offer", "answer"}) {
      Blob fields = blob_from_fields(v[std::string(which) + "_fields"]);
      Bytes wire = hex(v[which]);
      QCOMPARE(to_hex(encode_blob(fields)), to_hex(wire));
      auto decoded = decode_blob(wire);
      QVERIFY(decoded.ok());
      QVERIFY2(*decoded == fields, which);
    }
  }

  void validPairIsAccepted() {
    const auto& v = vectors()["blobs"];
    Bytes offer = hex(v["offer"]);
    QVERIFY(!check_offer(offer));
    QVERIFY(!check_answer(*decode_blob(offer), hex(v["answer"])));
    Negotiated n = negotiated_from(*decode_blob(hex(v["answer"])));
    QCOMPARE(n.token, vector_token());
    QCOMPARE(n.suite, Suite::Aes256Gcm);
    QCOMPARE(n.max_streams, std::uint16_t{4});
    QCOMPARE(n.flags, std::uint8_t{1});
  }

  void frameKeysFromTheBlobs() {
    const auto& k = vectors()["keys"];
    auto offer = decode_blob(hex(vectors()["blobs"]["offer"]));
    auto answer = decode_blob(hex(vectors()["blobs"]["answer"]));
    QVERIFY(offer.ok() && answer.ok());
    auto client = client_frame_keys(key32(k["client_ephemeral_private"]), *offer, *answer);
    auto server = server_frame_keys(key32(k["server_static_private"]), *offer);
    QVERIFY(client.ok() && server.ok());
    QVERIFY(*client == vector_keys());
    QVERIFY(*server == vector_keys());
  }

  void everyNegativeHasItsReason() {
    const auto& negatives = vectors()["blob_negatives"];
    QVERIFY(negatives.size() >= 17);
    for (const auto& neg : negatives) {
      std::string name = neg["name"], want = neg["reject"], got = judge(neg);
      QVERIFY2(got == want, (name + ": expected " + want + ", got " + got).c_str());
    }
  }

  void reasonsNameTheField() {
    Blob b;
    b.connection_token = 7;
    b.ring_buffer_kib = 63;
    auto refusal = check_offer(encode_blob(b));
    QVERIFY(refusal);
    QCOMPARE(refusal->reason, BlobReason::Ring);
    QVERIFY(refusal->detail.find("63") != std::string::npos);
    QVERIFY(refusal->detail.find("offset 10") != std::string::npos);
  }

 private:
  // The first failing reason for one negative, or "accepted".
  static std::string judge(const nlohmann::json& neg) {
    Bytes offer = hex(neg["offer"]);
    if (auto r = check_offer(offer)) return to_string(r->reason);
    if (neg["answer"].is_null()) return "accepted";
    Blob offer_blob = *decode_blob(offer);
    Bytes answer = hex(neg["answer"]);
    if (auto r = check_answer(offer_blob, answer)) return to_string(r->reason);
    // Both blobs are valid: what remains is the key derivation the server performs.
    auto keys = server_frame_keys(key32(vectors()["keys"]["server_static_private"]), offer_blob);
    return keys.ok() ? "accepted" : keys.error().reason;
  }
};

QTEST_GUILESS_MAIN(TestBlob)
#include "test_blob.moc"
