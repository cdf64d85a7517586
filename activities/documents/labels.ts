import type { DocumentKind, DocumentLocale } from '../../domain/documents.js';

/** Every fixed word a document prints, in both languages. */
export interface Labels {
  titles: Record<DocumentKind, string>;
  bookingCode: string;
  bookingStatus: string;
  paymentStatus: string;
  bookedAt: string;
  issuedAt: string;
  trip: string;
  departure: string;
  arrival: string;
  pickup: string;
  travellers: string;
  traveller: string;
  seat: string;
  leg: string;
  seats: string;
  discount: string;
  total: string;
  amount: string;
  method: string;
  collectedAt: string;
  refundedAt: string;
  collectedThrough: string;
  receiptNumber: string;
  refundNumber: string;
  cancelledAt: string;
  reason: string;
  boardingPass: string;
  scanNote: string;
  phone: string;
  notValidForTravel: string;
  statuses: Record<string, string>;
  /**
   * Why a booking ended, by the code its cancellation carries (db/queries/booking-ending.ts): the
   * journey's failure reason or the trip cancel's, and a traveller's cancel or a full refund in case
   * a revocation's reason is given. OTHER words a code this table does not know yet.
   */
  reasons: Record<string, string> & { OTHER: string };
  currency: Record<string, string>;
}

const en: Labels = {
  titles: {
    TICKET: 'Ticket',
    BOOKING_CONFIRMATION: 'Booking confirmation',
    INVOICE: 'Invoice',
    CANCELLATION_CONFIRMATION: 'Cancellation confirmation',
    PAYMENT_RECEIPT: 'Payment receipt',
    REFUND_NOTICE: 'Refund notice',
  },
  bookingCode: 'Booking code',
  bookingStatus: 'Booking status',
  paymentStatus: 'Payment',
  bookedAt: 'Booked on',
  issuedAt: 'Issued on',
  trip: 'Trip',
  departure: 'Departure',
  arrival: 'Arrival',
  pickup: 'Boarding point',
  travellers: 'Travellers',
  traveller: 'Traveller',
  seat: 'Seat',
  leg: 'Leg',
  seats: 'Seats',
  discount: 'Discount',
  total: 'Total',
  amount: 'Amount',
  method: 'Method',
  collectedAt: 'Collected on',
  refundedAt: 'Refunded on',
  collectedThrough: 'Recorded by',
  receiptNumber: 'Receipt number',
  refundNumber: 'Refund number',
  cancelledAt: 'Cancelled on',
  reason: 'Reason',
  boardingPass: 'Boarding pass',
  scanNote: 'Show this code to the driver when boarding. It is personal: do not share it.',
  phone: 'Phone',
  notValidForTravel: 'This booking is cancelled. This document is not valid for travel.',
  statuses: {
    HELD: 'Held',
    PENDING_CONFIRMATION: 'Awaiting confirmation',
    CONFIRMED: 'Confirmed',
    CANCELLED: 'Cancelled',
    CHECKED_IN: 'Checked in',
    NO_SHOW: 'No show',
    COMPLETED: 'Completed',
    EXPIRED: 'Expired',
    UNPAID: 'Unpaid (cash at the office or to the driver)',
    PAID: 'Paid',
    REFUNDED: 'Refunded',
    CASH: 'Cash',
    SHAMCASH: 'ShamCash',
    CARD: 'Card',
    // The traveller's announced cash (POST /payments/create): only the office completes such a line
    // (the driver's takeover makes it a `driver` line), so the office took this money.
    transaction: 'Office (announced by the traveller)',
    driver: 'Driver',
    office: 'Office',
    booking: 'Booking',
  },
  reasons: {
    TRIP_CANCELLED: 'The company cancelled the trip',
    COMPANY_REJECTED: 'The company declined the booking',
    DECISION_DEADLINE_PASSED: 'The company did not confirm the booking in time',
    COMPANY_SUSPENDED: 'The company was suspended',
    BOOKING_CANCELLED: 'Cancelled by the traveller',
    BOOKING_REFUNDED: 'Cancelled with a full refund',
    OTHER: 'Other',
  },
  currency: { SYP: 'SYP' },
};

const ar: Labels = {
  titles: {
    TICKET: 'تذكرة سفر',
    BOOKING_CONFIRMATION: 'تأكيد الحجز',
    INVOICE: 'فاتورة',
    CANCELLATION_CONFIRMATION: 'تأكيد إلغاء الحجز',
    PAYMENT_RECEIPT: 'إيصال دفع',
    REFUND_NOTICE: 'إشعار استرداد',
  },
  bookingCode: 'رمز الحجز',
  bookingStatus: 'حالة الحجز',
  paymentStatus: 'الدفع',
  bookedAt: 'تاريخ الحجز',
  issuedAt: 'تاريخ الإصدار',
  trip: 'الرحلة',
  departure: 'المغادرة',
  arrival: 'الوصول',
  pickup: 'نقطة الصعود',
  travellers: 'المسافرون',
  traveller: 'المسافر',
  seat: 'المقعد',
  leg: 'المرحلة',
  seats: 'المقاعد',
  discount: 'الخصم',
  total: 'الإجمالي',
  amount: 'المبلغ',
  method: 'طريقة الدفع',
  collectedAt: 'تاريخ التحصيل',
  refundedAt: 'تاريخ الاسترداد',
  collectedThrough: 'سُجّل عبر',
  receiptNumber: 'رقم الإيصال',
  refundNumber: 'رقم الاسترداد',
  cancelledAt: 'تاريخ الإلغاء',
  reason: 'السبب',
  boardingPass: 'بطاقة الصعود',
  scanNote: 'أظهر هذا الرمز للسائق عند الصعود. الرمز شخصي: لا تشاركه.',
  phone: 'الهاتف',
  notValidForTravel: 'هذا الحجز ملغى. هذه الوثيقة غير صالحة للسفر.',
  statuses: {
    HELD: 'محجوز مؤقتاً',
    PENDING_CONFIRMATION: 'بانتظار التأكيد',
    CONFIRMED: 'مؤكد',
    CANCELLED: 'ملغى',
    CHECKED_IN: 'تم الصعود',
    NO_SHOW: 'لم يحضر',
    COMPLETED: 'مكتمل',
    EXPIRED: 'منتهي',
    UNPAID: 'غير مدفوع (نقداً في المكتب أو للسائق)',
    PAID: 'مدفوع',
    REFUNDED: 'مسترد',
    CASH: 'نقداً',
    SHAMCASH: 'شام كاش',
    CARD: 'بطاقة',
    transaction: 'المكتب بعد إعلان المسافر',
    driver: 'السائق',
    office: 'المكتب',
    booking: 'الحجز',
  },
  reasons: {
    TRIP_CANCELLED: 'ألغت الشركة الرحلة',
    COMPANY_REJECTED: 'رفضت الشركة الحجز',
    DECISION_DEADLINE_PASSED: 'لم تؤكد الشركة الحجز في الوقت المحدد',
    COMPANY_SUSPENDED: 'تم تعليق حساب الشركة',
    BOOKING_CANCELLED: 'ألغاه المسافر',
    BOOKING_REFUNDED: 'ألغي الحجز مع استرداد كامل المبلغ',
    OTHER: 'سبب آخر',
  },
  currency: { SYP: 'ل.س' },
};

export const LABELS: Record<DocumentLocale, Labels> = { ar, en };
