/*
 * torch_backend_bind.cpp - ProcessGroupSymheap's point-to-point operations
 * and the Python module symheap._torch_backend that exposes the class and
 * team creation to symheap/torch.py.
 *
 * Ranks of a group are numbers in its team; symheap's messages name global
 * PEs, so send and recv translate.  Messages of all groups share the PEs'
 * tag space (as torch's tags are per pair of processes).
 */
#include "torch_backend.hpp"

#include <torch/csrc/utils/pybind.h>

namespace symheap_torch
{

using WorkPtr = c10::intrusive_ptr<c10d::Work>;

namespace
{

int global_pe(sym_team_t team, int rank, int size, const char *op)
{
    TORCH_CHECK(rank >= 0 && rank < size, "symheap ", op, ": rank ", rank,
                " is outside the group of ", size);
    return sym_team_local_to_global(team, rank);
}

void check_p2p(const std::vector<at::Tensor> &ts, int tag, const char *op)
{
    TORCH_CHECK(ts.size() == 1, "symheap ", op, ": expects one tensor per call, got ", ts.size());
    check_cpu(ts[0], op);
    datatype_of(ts[0], op);
    TORCH_CHECK(tag >= 0, "symheap ", op, ": tag must be >= 0, got ", tag);
}

size_t nbytes(const at::Tensor &t)
{
    return size_t(t.numel()) * t.element_size();
}

void check_received(size_t got, size_t want, const char *op, int peer)
{
    if (got != want)
        throw std::runtime_error("symheap " + std::string(op) + ": the message from rank " +
                                 std::to_string(peer) + " has " + std::to_string(got) +
                                 " bytes, the tensor " + std::to_string(want) +
                                 " (mismatched shapes or dtypes)");
}

} // namespace

WorkPtr ProcessGroupSymheap::send(std::vector<at::Tensor> &ts, int dst_rank, int tag)
{
    check_p2p(ts, tag, "send");
    int pe = global_pe(team_, dst_rank, size_, "send");
    return run(c10d::OpType::SEND, ts, [&] {
        at::Tensor c = ts[0].contiguous();
#ifdef SYM_ANY_PE
        sym_p2p_opts_t o{timeout_s_};
        check(sym_send_opts(c.data_ptr(), nbytes(c), pe, tag, &o), "send");
#else
        check(sym_send(c.data_ptr(), nbytes(c), pe, tag), "send");
#endif
    });
}

WorkPtr ProcessGroupSymheap::recv(std::vector<at::Tensor> &ts, int src_rank, int tag)
{
    check_p2p(ts, tag, "recv");
    int pe = global_pe(team_, src_rank, size_, "recv");
    return run(c10d::OpType::RECV, ts, [&] {
        at::Tensor c = ts[0].contiguous();
        size_t got = 0;
#ifdef SYM_ANY_PE
        sym_p2p_opts_t o{timeout_s_};
        sym_msg_status_t ms{};
        check(sym_recv_opts(c.data_ptr(), nbytes(c), pe, tag, &o, &ms), "recv");
        got = ms.nbytes;
#else
        check(sym_recv(c.data_ptr(), nbytes(c), pe, tag, &got), "recv");
#endif
        check_received(got, nbytes(c), "recv", src_rank);
        if (!c.is_same(ts[0]))
            ts[0].copy_(c);
    });
}

WorkPtr ProcessGroupSymheap::recvAnysource(std::vector<at::Tensor> &ts, int tag)
{
    check_p2p(ts, tag, "recvAnysource");
    check_live(c10d::OpType::RECVANYSOURCE);
#ifdef SYM_ANY_PE
    std::exception_ptr err;
    int source = -1;
    try {
        RECORD_FUNCTION(profiler_name(c10d::OpType::RECVANYSOURCE),
                        c10::ArrayRef<const c10::IValue>{});
        std::lock_guard<std::mutex> g(op_lock());
        at::Tensor c = ts[0].contiguous();
        sym_p2p_opts_t o{timeout_s_};
        sym_msg_status_t ms{};
        check(sym_recv_opts(c.data_ptr(), nbytes(c), SYM_ANY_PE, tag, &o, &ms), "recvAnysource");
        source = sym_team_global_to_local(team_, ms.source);
        check_received(ms.nbytes, nbytes(c), "recvAnysource", source);
        if (!c.is_same(ts[0]))
            ts[0].copy_(c);
    } catch (...) {
        err = std::current_exception();
    }
    return c10::make_intrusive<WorkSymheap>(c10d::OpType::RECVANYSOURCE, ts, err, source);
#else
    TORCH_CHECK(false, "symheap recvAnysource: this symheap has no receive from any source "
                       "(SYM_ANY_PE)");
    return {};
#endif
}

} // namespace symheap_torch

namespace py = pybind11;
using symheap_torch::ProcessGroupSymheap;

static uintptr_t team_handle(sym_team_t t)
{
    return reinterpret_cast<uintptr_t>(t);
}

PYBIND11_MODULE(_torch_backend, m)
{
    m.doc() = "ProcessGroupSymheap: the torch.distributed backend 'symheap'";
    // The base class's Python type must exist before ours derives from it.
    py::module_::import("torch.distributed");
    py::class_<ProcessGroupSymheap, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupSymheap>>(
        m, "ProcessGroupSymheap")
        .def(py::init([](int rank, int size, uintptr_t team, double timeout_s) {
                 return c10::make_intrusive<ProcessGroupSymheap>(
                     rank, size, reinterpret_cast<sym_team_t>(team), timeout_s);
             }),
             py::arg("rank"), py::arg("size"), py::arg("team"), py::arg("timeout_s"))
        .def_property_readonly("team",
                               [](const ProcessGroupSymheap &pg) { return team_handle(pg.team()); })
        .def_property_readonly("timeout_s", &ProcessGroupSymheap::timeout_s)
        .def_property_readonly("released", &ProcessGroupSymheap::released)
        // Destroy the group's team (collective over its members; not the
        // world's); its operations raise afterwards.
        .def("_release", &ProcessGroupSymheap::release, py::call_guard<py::gil_scoped_release>());
    m.def("team_world", [] { return team_handle(sym_team_world()); });
    // sym_team_create over the world: collective over every PE of the job;
    // returns 0 on PEs outside the new team.
    m.def(
        "team_create",
        [](std::vector<int> members) {
            sym_team_t t = SYM_TEAM_INVALID;
            sym_status_t st;
            {
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> g(symheap_torch::op_lock());
                st = sym_team_create(sym_team_world(), members.data(), int(members.size()), &t);
            }
            symheap_torch::check(st, "new_group (sym_team_create)");
            return team_handle(t);
        },
        py::arg("members"));
    m.def("team_set_timeout", [](uintptr_t team, double s) {
        symheap_torch::check(sym_team_set_timeout(reinterpret_cast<sym_team_t>(team), s),
                             "team_set_timeout");
    });
}
