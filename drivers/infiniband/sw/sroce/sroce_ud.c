// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_ud.c - UD send and receive.
 *
 * Send: the requester fetches UD WQEs like RC ones (sroce_sq_fetch_locked());
 * fetching resolves the WQE's AH index to a referenced AH handle, so the
 * destination survives ibv_destroy_ah(). Each WQE is one SEND ONLY [with
 * immediate] packet with a DETH, at most the port's active MTU long, and
 * completes as soon as the packet is handed to the IP stack.
 *
 * Receive: softirq, qp->lock held. A packet whose Q_Key is not the QP's,
 * that is longer than the port MTU or than the receive buffer, or finds no
 * receive WQE, is dropped and counted; nothing is answered.
 *
 * Kernel UD QPs name their AH by pointer in each ib_ud_wr; the post takes
 * a reference on its handle and parks it beside the ring slot
 * (qp->kpost_ahs), where the fetch takes it over. The GSI QP is a kernel
 * UD QP that is QP 1 on the wire: every device has its own, so a packet
 * for QP 1 goes to the device whose GID table holds its destination.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_vlan.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_cq.h"
#include "sroce_mcast.h"
#include "sroce_proto.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_sge.h"
#include "sroce_stats.h"
#include "sroce_ud.h"

void sroce_ud_qp_add(struct sroce_qp *qp, struct sroce_ucontext *uctx)
{
	qp->uctx = uctx;
	mutex_lock(&uctx->ud_lock);
	list_add_tail(&qp->ud_entry, &uctx->ud_qps);
	mutex_unlock(&uctx->ud_lock);
}

void sroce_ud_qp_del(struct sroce_qp *qp)
{
	if (!qp->uctx)
		return;
	mutex_lock(&qp->uctx->ud_lock);
	list_del(&qp->ud_entry);
	mutex_unlock(&qp->uctx->ud_lock);
}

/*
 * Every UD QP of @uctx takes the send WQEs posted so far (destroy_ah: see
 * the caller). The transmit thread is then kicked to send them.
 */
void sroce_ud_fetch_all(struct sroce_ucontext *uctx)
{
	struct sroce_qp *qp;

	mutex_lock(&uctx->ud_lock);
	list_for_each_entry(qp, &uctx->ud_qps, ud_entry) {
		spin_lock_bh(&qp->lock);
		if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
			sroce_sq_fetch_locked(qp);
		WRITE_ONCE(qp->tx_pending, true);
		spin_unlock_bh(&qp->lock);
		sroce_tx_kick(qp);
	}
	mutex_unlock(&uctx->ud_lock);
}

/* --- kernel UD QPs: the AH each posted WQE sends to ------------------ */

int sroce_ud_kpost_init(struct sroce_qp *qp)
{
	qp->kpost_ahs = kvcalloc(qp->sq.depth, sizeof(*qp->kpost_ahs),
				 GFP_KERNEL);
	return qp->kpost_ahs ? 0 : -ENOMEM;
}

/* Destroy: the references of WQEs posted and never fetched (RESET drops them). */
void sroce_ud_kpost_free(struct sroce_qp *qp)
{
	u32 i;

	if (!qp->kpost_ahs)
		return;
	for (i = 0; i < qp->sq.depth; i++)
		if (qp->kpost_ahs[i])
			sroce_ah_put(qp->kpost_ahs[i]);
	kvfree(qp->kpost_ahs);
	qp->kpost_ahs = NULL;
}

/**
 * sroce_ud_kpost_dest - the destination of a kernel UD send
 * @qp: a kernel UD or GSI QP; its sq_post_lock held
 * @wr: an ib_ud_wr
 * @wqe: the ring slot being filled; gets the QPN and Q_Key
 * @producer: the slot's free-running index
 *
 * Last step of building the WQE: nothing fails after the AH reference is
 * parked. The slot's previous WQE completed, so a fetch took its AH
 * already, unless RESET dropped that WQE: then its stale reference goes now.
 *
 * Return: 0, or -EINVAL (no AH, an AH of another PD, a QPN over 24 bits).
 */
int sroce_ud_kpost_dest(struct sroce_qp *qp, const struct ib_send_wr *wr,
			struct sroce_send_wqe *wqe, u32 producer)
{
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct sroce_ah_handle *handle, *stale;

	lockdep_assert_held(&qp->sq_post_lock);
	if (!ud->ah || ud->ah->pd != qp->ibqp.pd ||
	    (ud->remote_qpn & ~SROCE_PSN_MASK))
		return -EINVAL;
	wqe->ud.remote_qpn = ud->remote_qpn;
	wqe->ud.remote_qkey = ud->remote_qkey;
	handle = to_sah(ud->ah)->handle;
	refcount_inc(&handle->refs);	/* the caller's AH holds one */
	stale = xchg(&qp->kpost_ahs[producer & (qp->sq.depth - 1)], handle);
	if (stale)
		sroce_ah_put(stale);
	return 0;
}

/* The fetch's side: the reference the post parked for @swqe's slot. */
static struct sroce_ah_handle *sroce_ud_kpost_take(struct sroce_qp *qp,
						   const struct sroce_swqe *swqe)
{
	return xchg(&qp->kpost_ahs[swqe->index & (qp->sq.depth - 1)], NULL);
}

/* --- the GSI QP of each device --------------------------------------- */

/* Handles of the GSI QPs of all devices; RCU readers, sroce_gsi_lock writers. */
static LIST_HEAD(sroce_gsi_qps);
static DEFINE_SPINLOCK(sroce_gsi_lock);

/*
 * Make @qp the GSI QP of its device (create_qp, before the receive path
 * can see it). Return: 0, or -EBUSY if the device has one already.
 */
int sroce_gsi_publish(struct sroce_qp *qp)
{
	struct sroce_qp_handle *handle;
	int err = 0;

	spin_lock(&sroce_gsi_lock);
	/* Listed handles' QPs are alive: destroy unlists under this lock first. */
	list_for_each_entry(handle, &sroce_gsi_qps, gsi_entry)
		if (handle->qp->sdev == qp->sdev)
			err = -EBUSY;
	if (!err)
		list_add_tail_rcu(&qp->handle->gsi_entry, &sroce_gsi_qps);
	spin_unlock(&sroce_gsi_lock);
	return err;
}

/* Destroy, before waiting for the lookups' references. */
void sroce_gsi_unpublish(struct sroce_qp *qp)
{
	spin_lock(&sroce_gsi_lock);
	list_del_rcu(&qp->handle->gsi_entry);
	spin_unlock(&sroce_gsi_lock);
}

/* The destination address of a received packet, as a RoCEv2 GID. */
void sroce_ud_dest_gid(const struct sk_buff *skb, union ib_gid *gid)
{
	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)gid->raw);
	else
		memcpy(gid->raw, &ipv6_hdr(skb)->daddr, sizeof(gid->raw));
}

/* Any context: ib_core's GID table takes an IRQ-safe read lock. */
static bool sroce_dev_has_gid(struct sroce_dev *sdev, const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&sdev->ib_dev, gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/**
 * sroce_gsi_get - the GSI QP a packet for QP 1 is for
 * @skb: the packet, network header set (never a loopback short-cut one)
 *
 * Any context. A listed handle's QP may be in destroy: a reference is
 * taken before the QP is looked at, as sroce_qp_get() does.
 * Return: the QP with a reference, or NULL.
 */
struct sroce_qp *sroce_gsi_get(const struct sk_buff *skb)
{
	struct sroce_qp_handle *handle;
	struct sroce_qp *found = NULL;
	union ib_gid gid;

	sroce_ud_dest_gid(skb, &gid);
	rcu_read_lock();
	list_for_each_entry_rcu(handle, &sroce_gsi_qps, gsi_entry) {
		if (!refcount_inc_not_zero(&handle->refs))
			continue;
		/* Two namespaces may use one address: take the packet's. */
		if (sroce_rcv_net_ok(skb, handle->qp->sdev) &&
		    sroce_dev_has_gid(handle->qp->sdev, &gid)) {
			found = handle->qp;
			break;
		}
		sroce_qp_put(handle->qp);
	}
	rcu_read_unlock();
	return found;
}

void sroce_swqe_put_ah(struct sroce_swqe *swqe)
{
	if (swqe->ah) {
		sroce_ah_put(swqe->ah);
		swqe->ah = NULL;
	}
}

/**
 * sroce_ud_swqe_fetch - the UD part of fetching a send WQE
 * @qp: a UD QP; qp->lock held
 * @swqe: its copy, the common fields filled in
 * @hdr: the WQE header, already copied out of the ring
 *
 * Return: 0 with an AH reference in @swqe, or -EINVAL (only sends, a
 * 24-bit QPN, and an AH of this process and PD).
 */
int sroce_ud_swqe_fetch(struct sroce_qp *qp, struct sroce_swqe *swqe,
			const struct sroce_send_wqe *hdr)
{
	u32 qkey = hdr->ud.remote_qkey;

	lockdep_assert_held(&qp->lock);
	swqe->ah = NULL;
	if (hdr->opcode != SROCE_WR_SEND && hdr->opcode != SROCE_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (hdr->ud.remote_qpn & ~SROCE_PSN_MASK)
		return -EINVAL;
	swqe->remote_qpn = hdr->ud.remote_qpn;
	/* The QP's own Q_Key: a process can't name a privileged one here. */
	swqe->remote_qkey = (qkey & SROCE_QKEY_PRIVILEGED) ? qp->attr.qkey : qkey;
	if (qp->kpost_ahs)
		swqe->ah = sroce_ud_kpost_take(qp, swqe);
	else
		swqe->ah = sroce_ah_get_user(qp->uctx, hdr->ud.ah_index,
					     qp->ibqp.pd);
	return swqe->ah ? 0 : -EINVAL;
}

/* Reset or destroy: fetched WQEs go without completion, and their AHs. */
void sroce_ud_sq_release_locked(struct sroce_qp *qp)
{
	u32 i;

	lockdep_assert_held(&qp->lock);
	for (i = qp->comp_index; i != qp->sq.index; i++)
		sroce_swqe_put_ah(&qp->swqes[i & (qp->sq.depth - 1)]);
}

/* The port's active MTU: a UD message is one packet of at most that. */
static u32 sroce_ud_mtu(const struct sroce_qp *qp)
{
	return ib_mtu_enum_to_int(sroce_mtu_for_netdev_mtu(READ_ONCE(qp->sdev->ndev->mtu)));
}

/* Return: 0 once handed to the network (or dropped by it), or an errno. */
static int sroce_ud_send_swqe(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	int err;

	/*
	 * C10-93.1.1: a UD message longer than the port MTU emits no packet
	 * and no error (rdma_rxe completes it successfully too). Counted.
	 */
	if (swqe->length > sroce_ud_mtu(qp)) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_UD_SEND_TOO_LONG);
		return 0;
	}
	h.bth.opcode = SROCE_TRANSPORT_UD | (swqe->opcode == SROCE_WR_SEND_WITH_IMM ?
					     SROCE_OP_SEND_ONLY_IMM : SROCE_OP_SEND_ONLY);
	h.bth.solicited = swqe->send_flags & SROCE_SEND_SOLICITED;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	/* The wire rule for groups, whatever the WQE says. */
	h.bth.dest_qpn = sroce_av_is_mcast(&swqe->ah->av) ? SROCE_MCAST_QPN :
							     swqe->remote_qpn;
	h.bth.psn = qp->req_psn;
	h.deth.qkey = swqe->remote_qkey;
	h.deth.src_qpn = qp->ibqp.qp_num;
	h.imm = swqe->imm_data;
	h.payload_len = swqe->length;

	skb = sroce_req_build(&h);
	if (!skb)
		return -ENOMEM;
	err = sroce_req_gather(qp, swqe, 0, skb->data + h.op->hdr_len,
			       swqe->length);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	qp->req_psn = sroce_psn_add(qp->req_psn, 1);
	/* Unreliable: a packet the stack refuses is lost like one on the wire. */
	sroce_pkt_xmit_av(qp->sdev, &swqe->ah->av, qp->src_port, skb);
	return 0;
}

/**
 * sroce_ud_req_locked - send what a UD QP has fetched
 * @qp: the QP, in RTS; qp->lock held
 * @budget: packets this pass may still send; decremented
 *
 * Return: true if anything was sent or completed.
 */
bool sroce_ud_req_locked(struct sroce_qp *qp, int *budget)
{
	bool busy = false;

	lockdep_assert_held(&qp->lock);
	sroce_sq_fetch_locked(qp);
	while (*budget > 0 && qp->req_index != qp->sq.index) {
		struct sroce_swqe *swqe =
			&qp->swqes[qp->req_index & (qp->sq.depth - 1)];

		if (swqe->state != SROCE_SWQE_DONE) {
			int err = sroce_ud_send_swqe(qp, swqe);

			if (err == -ENOMEM)
				break;
			if (err)
				sroce_swqe_fail(swqe, err == -EMSGSIZE ?
						IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR);
			else
				swqe->state = SROCE_SWQE_DONE;
			(*budget)--;
		}
		sroce_swqe_put_ah(swqe);
		qp->req_index++;
		busy = true;
	}
	sroce_comp_advance_locked(qp);
	return busy;
}

/*
 * The GRH area: the IPv6 header as received, or 20 zero bytes and the
 * IPv4 header (RoCEv2 IPv4 headers have no options).
 */
static void sroce_ud_grh(const struct sk_buff *skb, u8 *grh)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		memset(grh, 0, SROCE_GRH_BYTES - sizeof(struct iphdr));
		memcpy(grh + SROCE_GRH_BYTES - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
	} else {
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
	}
}

/*
 * What ib_core needs to answer a UD packet of a kernel consumer
 * (ib_init_ah_attr_from_wc(), how ib_cm and rdma_cm reply to a request):
 * the network header's type, and the VLAN of the netdev the packet was
 * addressed to, whose GID the reply must come from (a GID on a VLAN is
 * found by its VLAN ID alone).
 */
static void sroce_ud_wc_network(struct sk_buff *skb, struct sroce_cqe *cqe)
{
	struct net_device *ndev;
	u16 vlan_id = 0xffff;

	if (skb->protocol == htons(ETH_P_IP))
		cqe->wc_flags |= SROCE_WC_NET_IPV4;
	rcu_read_lock();
	ndev = sroce_rcv_netdev(skb);
	if (ndev)
		vlan_id = rdma_vlan_dev_vlan_id(ndev);
	rcu_read_unlock();
	if (vlan_id < VLAN_N_VID) {
		cqe->wc_flags |= SROCE_WC_WITH_VLAN;
		cqe->vlan_id = vlan_id;
	}
}

static void sroce_ud_complete_recv(struct sroce_qp *qp, struct sk_buff *skb,
				   const struct sroce_hdrs *h,
				   enum ib_wc_status status, u32 byte_len)
{
	struct sroce_cqe cqe = {
		.status = status,
		.byte_len = byte_len,
		.src_qp = h->deth.src_qpn,
		.wc_flags = SROCE_WC_GRH,
	};

	/* ibv_wc has no room for them: no netdev lookup for a process's QP. */
	if (!qp->ibqp.uobject)
		sroce_ud_wc_network(skb, &cqe);
	sroce_resp_post_rwqe_cqe(qp, h, &cqe);
}

/*
 * The next receive WQE, or false. A WQE the kernel refuses completes in
 * error and a corrupt ring index fails the QP, as on RC.
 */
static bool sroce_ud_fetch_rwqe_locked(struct sroce_qp *qp,
				       struct sk_buff *skb,
				       const struct sroce_hdrs *h)
{
	int err;

	lockdep_assert_held(&qp->lock);
	err = sroce_resp_fetch_rwqe(qp);
	if (!err)
		return true;
	if (err == -EINVAL)
		sroce_ud_complete_recv(qp, skb, h, IB_WC_LOC_QP_OP_ERR, 0);
	if (err != -EAGAIN)
		sroce_qp_error_locked(qp);
	return false;
}

/*
 * May the QP take this packet? If not, *@reason says which counter its
 * drop goes to. A receive WQE is fetched (and kept) only for packets that
 * passed every other check.
 */
static bool sroce_ud_rcv_ok_locked(struct sroce_qp *qp, struct sk_buff *skb,
				   const struct sroce_hdrs *h,
				   enum sroce_stat *reason)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS &&
	    qp->state != IB_QPS_SQD)
		*reason = SROCE_STAT_RCVD_UNKNOWN_QPN;
	else if ((h->bth.opcode & SROCE_TRANSPORT_MASK) != SROCE_TRANSPORT_UD ||
		 !(h->op->flags & SROCE_OPF_DETH))
		*reason = SROCE_STAT_RCVD_MALFORMED;
	else if (h->deth.qkey != qp->attr.qkey)
		*reason = SROCE_STAT_QKEY_VIOL;
	else if (h->payload_len > sroce_ud_mtu(qp))
		*reason = SROCE_STAT_RCVD_UD_LEN_ERR;
	else if (!qp->rwqe_valid && !sroce_ud_fetch_rwqe_locked(qp, skb, h))
		*reason = SROCE_STAT_RCVD_UD_NO_WQE;
	else if (SROCE_GRH_BYTES + h->payload_len > qp->rwqe.length)
		*reason = SROCE_STAT_RCVD_UD_LEN_ERR;
	else
		return true;
	return false;
}

/* Place GRH and payload; qp->lock held. */
static void sroce_ud_place_locked(struct sroce_qp *qp, struct sk_buff *skb,
				  const struct sroce_hdrs *h)
{
	struct ib_pd *pd = sroce_qp_recv_pd(qp);
	u8 grh[SROCE_GRH_BYTES];
	int err;

	lockdep_assert_held(&qp->lock);
	sroce_ud_grh(skb, grh);
	err = sroce_sge_copy(qp, pd, qp->rwqe.sge, qp->rwqe.num_sge, 0, grh,
			     sizeof(grh), SROCE_COPY_TO_MR);
	if (!err)
		err = sroce_sge_copy(qp, pd, qp->rwqe.sge, qp->rwqe.num_sge,
				     SROCE_GRH_BYTES, skb->data + h->op->hdr_len,
				     h->payload_len, SROCE_COPY_TO_MR);
	if (err) {
		/* The process's own buffer is bad: as on RC, the QP fails. */
		sroce_ud_complete_recv(qp, skb, h, IB_WC_LOC_PROT_ERR, 0);
		sroce_qp_error_locked(qp);
		return;
	}
	sroce_ud_complete_recv(qp, skb, h, IB_WC_SUCCESS,
			       SROCE_GRH_BYTES + h->payload_len);
}

/**
 * sroce_ud_rcv - a packet for a UD QP
 * @qp: the destination, referenced by the caller
 * @skb: the packet, skb->data at the BTH, network header set; consumed
 * @h: its parsed headers (the parse succeeded)
 * @local: it came by the loopback short-cut, without an IP header; UD
 *	never sends that way, so such a packet is not genuine
 */
void sroce_ud_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		  const struct sroce_hdrs *h, bool local)
{
	enum sroce_stat reason = SROCE_STAT_RCVD_MALFORMED;
	bool ok = false;

	if (!local) {
		spin_lock_bh(&qp->lock);
		ok = sroce_ud_rcv_ok_locked(qp, skb, h, &reason);
		if (ok)
			sroce_ud_place_locked(qp, skb, h);
		spin_unlock_bh(&qp->lock);
	}
	if (!ok) {
		sroce_stat_drop(qp->sdev, reason);
		kfree_skb(skb);
		return;
	}
	sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_PKTS);
	sroce_stat_add(qp->sdev, SROCE_STAT_RCVD_BYTES, skb->len);
	if (h->bth.dest_qpn == SROCE_MCAST_QPN)
		sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_MCAST_QP_PKTS);
	consume_skb(skb);
}
