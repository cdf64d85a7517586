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
    transaction: 'Online transaction',
    driver: 'Driver',
    office: 'Office',
    booking: 'Booking',
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
    transaction: 'معاملة إلكترونية',
    driver: 'السائق',
    office: 'المكتب',
    booking: 'الحجز',
  },
  currency: { SYP: 'ل.س' },
};

export const LABELS: Record<DocumentLocale, Labels> = { ar, en };
