/*
 * torch_backend.hpp - ProcessGroupSymheap, the torch.distributed backend
 * "symheap": a c10d::ProcessGroup (torch 1.13 interface) whose operations
 * are symheap collectives and messages on one symheap team (the world for
 * the default group, a team made by sym_team_create for new_group).
 *
 * Every operation runs to completion in the calling thread and returns a
 * completed Work: wait() rethrows its error, getFuture() is already
 * satisfied (DDP's communication hook chains on it).  Operations of the
 * process are serialised by one lock (symheap teams take one call at a
 * time).  Each call's deadline is the group's timeout (init_process_group /
 * new_group timeout=) unless the op's options carry their own.  Each
 * operation is a "symheap:<op>" range in torch's profiler.
 *
 * release() (destroy_process_group, through symheap/torch.py) destroys the
 * group's team, unless it is the world's; the group's operations then
 * raise.
 */
#pragma once

#include <symheap.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <ATen/record_function.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace symheap_torch
{

// A finished operation: completed at construction, with its outputs, its
// error (if any) and, for receives from any source, the sender's rank.
class WorkSymheap : public c10d::Work
{
  public:
    WorkSymheap(c10d::OpType type, std::vector<at::Tensor> outputs, std::exception_ptr error,
                int source_rank = -1);
    bool isCompleted() override;
    bool isSuccess() const override;
    std::exception_ptr exception() const override;
    int sourceRank() const override;
    std::vector<at::Tensor> result() override;
    void synchronize() override;
    bool wait(std::chrono::milliseconds timeout) override;
    void abort() override;
    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

  private:
    std::vector<at::Tensor> outputs_;
    int source_rank_;
    c10::intrusive_ptr<c10::ivalue::Future> future_;
};

// The process-wide lock every operation holds while it calls symheap.
std::mutex &op_lock();

// "symheap:<op>", the profiler's name of an operation.
const std::string &profiler_name(c10d::OpType type);

class ProcessGroupSymheap : public c10d::ProcessGroup
{
  public:
    // `team`: the symheap team whose members are this group's ranks in team
    // order; `timeout_s`: the deadline of each operation.
    ProcessGroupSymheap(int rank, int size, sym_team_t team, double timeout_s);
    ~ProcessGroupSymheap() override;

    const std::string getBackendName() const override
    {
        return "symheap";
    }
    sym_team_t team() const
    {
        return team_;
    }
    bool released() const
    {
        return released_;
    }
    // Destroy the group's team (sym_team_destroy: collective over its
    // members) unless it is the world team; later operations raise.  A
    // second call does nothing.  Throws the team's error, if any.
    void release();
    double timeout_s() const
    {
        return timeout_s_;
    }

    c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &tensors,
                                             const c10d::BroadcastOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &tensors,
                                             const c10d::AllreduceOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    allreduce_coalesced(std::vector<at::Tensor> &tensors,
                        const c10d::AllreduceCoalescedOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &tensors,
                                          const c10d::ReduceOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>> &outputs,
                                             std::vector<at::Tensor> &inputs,
                                             const c10d::AllgatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &output, at::Tensor &input,
                                                   const c10d::AllgatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    allgather_coalesced(std::vector<std::vector<at::Tensor>> &outputs,
                        std::vector<at::Tensor> &inputs,
                        const c10d::AllgatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>> &outputs,
                                          std::vector<at::Tensor> &inputs,
                                          const c10d::GatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor> &outputs,
                                           std::vector<std::vector<at::Tensor>> &inputs,
                                           const c10d::ScatterOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor> &outputs,
                                                  std::vector<std::vector<at::Tensor>> &inputs,
                                                  const c10d::ReduceScatterOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    _reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                         const c10d::ReduceScatterOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &output, at::Tensor &input,
                                                 std::vector<int64_t> &output_splits,
                                                 std::vector<int64_t> &input_splits,
                                                 const c10d::AllToAllOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor> &outputs,
                                            std::vector<at::Tensor> &inputs,
                                            const c10d::AllToAllOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors, int dst_rank,
                                        int tag) override;
    c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors, int src_rank,
                                        int tag) override;
    c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &tensors,
                                                 int tag) override;
    c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override;

  private:
    sym_team_t team_;
    double timeout_s_;
    bool released_ = false;

    // Throws unless the group is usable (not released).
    void check_live(c10d::OpType type) const;

  protected:
    // A Work finished by running `fn` now, under the process's operation
    // lock and a profiler range named after the op; its exception (if any)
    // is kept in the Work.
    template <typename Fn>
    c10::intrusive_ptr<c10d::Work> run(c10d::OpType type, std::vector<at::Tensor> outputs, Fn &&fn)
    {
        check_live(type);
        std::exception_ptr err;
        try {
            RECORD_FUNCTION(profiler_name(type), c10::ArrayRef<const c10::IValue>{});
            std::lock_guard<std::mutex> g(op_lock());
            fn();
        } catch (...) {
            err = std::current_exception();
        }
        return c10::make_intrusive<WorkSymheap>(type, std::move(outputs), err);
    }
};

// --- helpers shared by the operation files ---


// symheap datatype of a tensor's dtype; throws naming the dtype otherwise.
sym_datatype_t datatype_of(const at::Tensor &t, const char *op);

// symheap op for a torch ReduceOp on `dt` (bool maps SUM/MAX to or,
// PRODUCT/MIN to and); throws for PREMUL_SUM and the unsupported.
sym_op_t op_of(const c10d::ReduceOp &op, const at::Tensor &t, const char *opname);

// Per-call options: the op's timeout when set, else the group's.
sym_coll_opts_t coll_opts(std::chrono::milliseconds timeout, double group_timeout_s);

// Throw std::runtime_error "symheap <op>: <message> (<STATUS>)" for a
// failed status.
void check(sym_status_t st, const char *op);

// A CPU tensor check: throws unless `t` is a CPU tensor.
void check_cpu(const at::Tensor &t, const char *op);

} // namespace symheap_torch
