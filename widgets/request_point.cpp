#include "request_point.h"

namespace anthro::widgets {

RequestPoint request_point(const RequestResult& r, double t_s, int request) {
  RequestPoint p;
  p.t_s = t_s;
  p.ttft_ms = r.figures.ttft_ms;
  p.tokens_per_s = r.figures.tokens_per_s;
  p.itl_ms = r.figures.itl_ms;
  p.request = request;
  return p;
}

}  // namespace anthro::widgets
