/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * verbs_provider_abi.h - the slice of libibverbs' private provider ABI that
 * libsroce uses, declared here because Debian ships neither driver.h nor
 * kern-abi.h.
 *
 * What this mirrors: rdma-core's libibverbs/driver.h and libibverbs/kern-abi.h
 * at tag v44.0 (the installed rdma-core), private ABI IBVERBS_PRIVATE_34.
 * rdma-core keeps these layouts identical for every release that exports
 * IBVERBS_PRIVATE_34 (checked v38.0 to v48.0): the library renames the
 * private symbol version whenever one of them changes, which is why the
 * Makefile refuses any other IBVERBS_PRIVATE_ version instead of guessing.
 *
 * Rules for editing: member order and types here are a binary contract with
 * a library we do not compile. Never reorder, never drop a member because
 * sroce does not use it, and keep the static asserts at the bottom in step.
 * Only what sroce calls or fills in is declared; grow it as the data path
 * needs more (ibv_cmd_create_cq, ...), checking each addition against the
 * same rdma-core files.
 */
#ifndef SROCE_VERBS_PROVIDER_ABI_H
#define SROCE_VERBS_PROVIDER_ABI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

/* The Makefile passes the IBVERBS_PRIVATE_ number it found in libibverbs. */
#define SROCE_SUPPORTED_PABI 34
#if defined(SROCE_DETECTED_PABI) && SROCE_DETECTED_PABI != SROCE_SUPPORTED_PABI
#error "libibverbs private ABI differs from the IBVERBS_PRIVATE_34 declared here"
#endif

/* ccan/list.h node, embedded in two of the structures below. */
struct list_node {
	struct list_node *next;
	struct list_node *prev;
};

/* --- device matching (driver.h) ----------------------------------------- */

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/*
 * libibverbs tries a name match by running fnmatch() of each MODALIAS entry
 * against the string "rdma_device:N<ibdev name>"; this builds such an entry
 * for a device-name prefix (the same pattern driver.h's VERBS_NAME_MATCH
 * produces).
 */
#define SROCE_VERBS_NAME_PREFIX_MATCH(prefix)                                 \
	{                                                                      \
		.u.modalias = "rdma_device:*N" prefix "*",                     \
		.kind = VERBS_MATCH_MODALIAS,                                  \
	}

/* One rdma device found in sysfs (or over netlink) by libibverbs. */
struct verbs_sysfs_dev {
	struct list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/* The provider embeds this first in its own device structure. */
struct verbs_device {
	struct ibv_device device;	/* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* --- objects a provider embeds (driver.h) ------------------------------- */

struct verbs_xrcd;	/* only pointed to here */

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

/* ibv_cmd_reg_mr() fills in the ibv_mr, mr_type and access. */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

enum verbs_qp_mask {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,	/* ibv_qp_to_qp_ex() returns &qp_ex only if set */
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;	/* enum verbs_qp_mask */
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* --- context operations (driver.h) -------------------------------------- */

/*
 * Every operation a provider may supply, alphabetical as in driver.h.
 * verbs_set_ops() copies each non-NULL member into the context; a NULL one
 * keeps libibverbs' stub, which fails with EOPNOTSUPP.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(
		struct ibv_context *context,
		struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(
		struct ibv_context *context,
		struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/* --- legacy write() command buffers (kern-abi.h) ------------------------ */

/*
 * kern-abi.h generates one struct per command: the uverbs command header
 * followed by the kernel's request struct. libibverbs fills both in; the
 * provider only supplies storage of the right size (plus any driver
 * payload after it, none for sroce yet).
 */
struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core_payload;
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core_payload;
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core_payload;
};

struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_mw core_payload;
};

struct ibv_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq core_payload;
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_resize_cq core_payload;
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core_payload;
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_rereg_mr core_payload;
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core_payload;
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_qp core_payload;
};

struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core_payload;
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq core_payload;
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_srq core_payload;
};

/* Extended commands carry a second header (kern-abi.h's struct ex_hdr). */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_cq core_payload;
};

struct ibv_create_qp_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_qp core_payload;
};

/* --- functions exported under IBVERBS_PRIVATE_34 (libibverbs.map.in) ---- */

/*
 * driver.h spells this verbs_register_driver_##IBVERBS_PABI_VERSION so a
 * provider built for another private ABI fails to link instead of
 * corrupting memory.
 */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

/*
 * calloc()s alloc_size bytes and initialises the verbs_context found
 * context_offset bytes into them; on failure it has already closed cmd_fd.
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* The ibv_cmd_* helpers return 0 or a positive errno. */
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
/* Fills in ah->context, pd and handle. */
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

/* Completes the ibv_cq that create_cq/create_cq_ex returned (device.c). */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);

/* cmd_flags of ibv_cmd_create_cq_ex (driver.h's enum create_cq_cmd_flags) */
enum {
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 << 0,
};

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);

int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/* Fills in mw->context, pd, rkey, handle and type. */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);

int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

/* --- layout checks --------------------------------------------------------
 *
 * The expected numbers below were measured by compiling rdma-core v44.0's
 * own driver.h definitions on x86_64 (see README.md); the pointer-count
 * forms hold on any ABI.
 */
#define SROCE_FN_PTR_SIZE sizeof(void (*)(void))

_Static_assert(sizeof(struct verbs_context_ops) == 76 * SROCE_FN_PTR_SIZE,
	       "verbs_context_ops must list exactly 76 operations");
_Static_assert(offsetof(struct verbs_context_ops, alloc_pd) ==
		       5 * SROCE_FN_PTR_SIZE,
	       "alloc_pd is the 6th operation");
_Static_assert(offsetof(struct verbs_context_ops, dealloc_pd) ==
		       26 * SROCE_FN_PTR_SIZE,
	       "dealloc_pd is the 27th operation");
_Static_assert(offsetof(struct verbs_context_ops, free_context) ==
		       39 * SROCE_FN_PTR_SIZE,
	       "free_context is the 40th operation");
_Static_assert(offsetof(struct verbs_context_ops, query_device_ex) ==
		       58 * SROCE_FN_PTR_SIZE,
	       "query_device_ex is the 59th operation");
_Static_assert(offsetof(struct verbs_context_ops, query_port) ==
		       60 * SROCE_FN_PTR_SIZE,
	       "query_port is the 61st operation");
/* The data-path slots, by their position in driver.h's sorted list. */
#define SROCE_ASSERT_OP_SLOT(op, slot)                                         \
	_Static_assert(offsetof(struct verbs_context_ops, op) ==               \
			       (slot) * SROCE_FN_PTR_SIZE,                     \
		       #op " is operation number " #slot " (from 0)")
SROCE_ASSERT_OP_SLOT(create_cq, 15);
SROCE_ASSERT_OP_SLOT(create_cq_ex, 16);
SROCE_ASSERT_OP_SLOT(create_qp, 19);
SROCE_ASSERT_OP_SLOT(create_qp_ex, 20);
SROCE_ASSERT_OP_SLOT(create_srq, 22);
SROCE_ASSERT_OP_SLOT(destroy_srq, 36);
SROCE_ASSERT_OP_SLOT(modify_srq, 49);
SROCE_ASSERT_OP_SLOT(post_srq_recv, 57);
SROCE_ASSERT_OP_SLOT(query_srq, 64);
SROCE_ASSERT_OP_SLOT(dereg_mr, 28);
SROCE_ASSERT_OP_SLOT(destroy_cq, 31);
SROCE_ASSERT_OP_SLOT(destroy_qp, 34);
SROCE_ASSERT_OP_SLOT(modify_qp, 47);
SROCE_ASSERT_OP_SLOT(poll_cq, 53);
SROCE_ASSERT_OP_SLOT(post_recv, 54);
SROCE_ASSERT_OP_SLOT(post_send, 55);
SROCE_ASSERT_OP_SLOT(query_qp, 61);
SROCE_ASSERT_OP_SLOT(reg_mr, 68);
SROCE_ASSERT_OP_SLOT(req_notify_cq, 69);
SROCE_ASSERT_OP_SLOT(rereg_mr, 70);
SROCE_ASSERT_OP_SLOT(resize_cq, 71);
_Static_assert(offsetof(struct verbs_qp, qp) == 0 &&
		       offsetof(struct verbs_qp, qp_ex.qp_base) == 0 &&
		       offsetof(struct verbs_cq, cq) == 0,
	       "libibverbs casts between the embedded verbs objects");
_Static_assert(sizeof(struct ibv_create_cq) == 40 &&
		       sizeof(struct ibv_reg_mr) == 48 &&
		       sizeof(struct ibv_rereg_mr) == 56 &&
		       sizeof(struct ibv_resize_cq) == 24 &&
		       sizeof(struct ibv_modify_qp) == 120 &&
		       sizeof(struct ibv_query_qp) == 24 &&
		       sizeof(struct ibv_create_cq_ex) == 56 &&
		       sizeof(struct ibv_create_qp_ex) == 88 &&
		       sizeof(struct ibv_create_srq) == 40 &&
		       sizeof(struct ibv_modify_srq) == 24 &&
		       sizeof(struct ibv_query_srq) == 24,
	       "command buffers are header(s) + request, as kern-abi.h asserts");
_Static_assert(offsetof(struct verbs_device, device) == 0,
	       "libibverbs casts ibv_device to verbs_device");
_Static_assert(sizeof(struct ibv_get_context) == 16 &&
		       sizeof(struct ibv_query_port) == 24 &&
		       sizeof(struct ibv_alloc_pd) == 16,
	       "command buffers are header + request, as kern-abi.h asserts");

#if defined(__x86_64__)
_Static_assert(sizeof(struct verbs_match_ent) == 24, "verbs_match_ent");
_Static_assert(offsetof(struct verbs_match_ent, kind) == 20,
	       "verbs_match_ent.kind");
_Static_assert(sizeof(struct verbs_sysfs_dev) == 992, "verbs_sysfs_dev");
_Static_assert(offsetof(struct verbs_sysfs_dev, ibdev_name) == 112,
	       "verbs_sysfs_dev.ibdev_name");
_Static_assert(offsetof(struct verbs_sysfs_dev, abi_ver) == 968,
	       "verbs_sysfs_dev.abi_ver");
_Static_assert(sizeof(struct verbs_device_ops) == 72, "verbs_device_ops");
_Static_assert(offsetof(struct verbs_device_ops, alloc_device) == 56,
	       "verbs_device_ops.alloc_device");
_Static_assert(sizeof(struct verbs_device) == 712, "verbs_device");
_Static_assert(sizeof(struct verbs_mr) == 56, "verbs_mr");
_Static_assert(offsetof(struct verbs_mr, access) == 52, "verbs_mr.access");
_Static_assert(sizeof(struct verbs_qp) == 368, "verbs_qp");
_Static_assert(offsetof(struct verbs_qp, comp_mask) == 352,
	       "verbs_qp.comp_mask");
_Static_assert(sizeof(struct verbs_cq) == 288, "verbs_cq");
_Static_assert(offsetof(struct verbs_device, sysfs) == 696,
	       "verbs_device.sysfs");
#endif

#endif /* SROCE_VERBS_PROVIDER_ABI_H */
